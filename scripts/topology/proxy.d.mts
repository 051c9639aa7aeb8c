export interface ProxyStats {
  total: number;
  upstreams: { url: string; requests: number; ready: boolean }[];
}

export interface ProxyHandle {
  url: string;
  port: number;
  /** Requests received, and requests answered by each upstream. */
  stats(): ProxyStats;
  close(): Promise<void>;
}

/**
 * Starts a round-robin reverse proxy over `upstreams`; a refused connection is retried on the next upstream. With
 * `readyPath` each upstream is probed every `readyIntervalMs` (250) and one not answering 200 gets no new requests.
 */
export function startProxy(options: { upstreams: string[]; port?: number; host?: string; readyPath?: string; readyIntervalMs?: number }): Promise<ProxyHandle>;
