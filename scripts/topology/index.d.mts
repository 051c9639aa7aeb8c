import type { ProxyStats } from './proxy.mjs';

export interface TopologyOptions {
  /** PostgreSQL URL (production mode). */
  databaseUrl: string;
  /** Redis URL (shared rate limit and jobs). */
  redisUrl: string;
  /** Bind address of every process (default 127.0.0.1). */
  host?: string;
  /** api processes behind the proxy (default 2). */
  apiReplicas?: number;
  /** mcp processes (default 1, named mcp); more are named mcp-1, mcp-2, ... and run behind a proxy on the mcp port. */
  mcpReplicas?: number;
  /** Ports; 0 picks a free one. Defaults: proxy 3000, mcp 3001, worker 3002, api 3010 (then 3011, ...). */
  ports?: { proxy?: number; mcp?: number; worker?: number; api?: number };
  /** Operator token; generated when absent. */
  adminToken?: string;
  /** QUEUE_PREFIX of every process (BullMQ keys); give each test run its own so runs on one Redis never mix. */
  queuePrefix?: string;
  /** Extra variables for every app process (RATE_LIMIT_PER_MINUTE, LOG_LEVEL, QUEUE_PREFIX, ...). */
  env?: Record<string, string>;
  /** Receives every line the processes print. */
  onLog?: (name: string, line: string) => void;
  /** How long each process may take to answer 200 on /ready (default 60000 ms). */
  readyTimeoutMs?: number;
}

export interface Topology {
  /** REST base URL behind the proxy (append /v1 or /admin/v1). */
  apiUrl: string;
  /** The api replicas, bypassing the proxy. */
  apiReplicaUrls: string[];
  /** The MCP endpoint (…/mcp). */
  mcpUrl: string;
  workerUrl: string;
  adminToken: string;
  /** Process names: api-1, api-2, …, mcp (or mcp-1, mcp-2, …), worker. */
  names: string[];
  processes(): { name: string; url: string; pid: number | undefined; running: boolean }[];
  proxyStats(): ProxyStats;
  /** The mcp proxy's stats; undefined with one mcp process. */
  mcpProxyStats(): ProxyStats | undefined;
  /** The last lines a process printed. */
  logs(name: string): string[];
  /** Stops one process: SIGTERM is a graceful stop, SIGKILL a crash. */
  stopProcess(name: string, signal?: NodeJS.Signals): Promise<{ code: number | null; signal: string | null } | undefined>;
  /** Starts a stopped process again on the same port and waits until it is ready. */
  startProcess(name: string): Promise<unknown>;
  /** Stops the named processes (default all), then starts them again and waits until all are ready. */
  restart(names?: string[], signal?: NodeJS.Signals): Promise<void>;
  /** Stops the proxy and every process. */
  stop(): Promise<void>;
}

/** Starts migrations once, then the api replicas behind a round-robin proxy, mcp and worker, from built output. */
export function startTopology(options: TopologyOptions): Promise<Topology>;

/** A free TCP port on `host`. */
export function freePort(host?: string): Promise<number>;

/** Creates a fresh PostgreSQL database (its name must contain "test") next to `adminUrl`. */
export function createDatabase(adminUrl: string, name?: string): Promise<{ url: string; name: string; drop(): Promise<void> }>;
