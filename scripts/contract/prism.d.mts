export const PRISM: string;

export interface PrismStats {
  /** Requests received by the counting proxy. */
  requests: number;
  /** Responses that came from the server and were checked against the document. */
  validated: number;
  /** Requests without Authorization sent around Prism (it would answer them itself). */
  bypassed: number;
  /** Responses that broke the document (Prism's 500 with sl-violations). */
  violations: { request: string; status: number; violations: unknown }[];
  /** Requests Prism answered itself (no such path, security), so nothing was validated. */
  prismErrors: { request: string; status: number; body: string }[];
}

export interface PrismHandle {
  /** Send requests here (base URL; append /v1/...). */
  url: string;
  prismUrl: string;
  stats(): PrismStats;
  /** Throws when any response broke the document or Prism could not validate a request. */
  assertClean(): void;
  logs(): string[];
  stop(): Promise<void>;
}

/** Starts `prism proxy --errors` in front of `upstream` with a counting proxy before it. */
export function startPrism(options: {
  upstream: string;
  document?: string;
  host?: string;
  port?: number;
  prismPort?: number;
  validateRequest?: boolean;
  bypassUnauthenticated?: boolean;
  startTimeoutMs?: number;
  onLog?: (line: string) => void;
}): Promise<PrismHandle>;
