export interface ProxyStats {
  total: number;
  upstreams: { url: string; requests: number }[];
}

export interface ProxyHandle {
  url: string;
  port: number;
  /** Requests received, and requests answered by each upstream. */
  stats(): ProxyStats;
  close(): Promise<void>;
}

/** Starts a round-robin reverse proxy over `upstreams`; a refused connection is retried on the next upstream. */
export function startProxy(options: { upstreams: string[]; port?: number; host?: string }): Promise<ProxyHandle>;
