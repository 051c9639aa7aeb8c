import type { Server } from 'node:http';
import { createLogger, drainServer, listen, type Runtime } from '@tt/http';
import { createMcpApp, type McpAppOptions } from './app.js';
import { allowedHosts, trustProxy } from './config.js';
import { allowedOrigins } from './edge/cors.js';
import { type OAuthSettings, oauthSettings } from './oauth/index.js';
import { liveSubscriptions } from './subscriptions/index.js';

export { createMcpApp, type McpAppOptions } from './app.js';
export { liveSubscriptions, type LiveSubscriptions, type SubscriptionOptions } from './subscriptions/index.js';
export { SERVER_INSTRUCTIONS } from './server.js';
export { OAuthConfigShape, oauthSettings, type OAuthSettings } from './oauth/index.js';
export { BrowserConfigShape } from './edge/cors.js';

export interface McpOptions {
  port: number;
  host: string;
  logLevel: string;
  trustProxy?: string | undefined;
  /** Bearer token for GET /metrics (METRICS_TOKEN); unset = open. */
  metricsToken?: string | undefined;
  /** Serve GET /metrics (default); embedded mode serves the process's metrics on the api port instead. */
  metrics?: boolean;
  /** On stop: how long to keep serving while `/ready` answers 503 `draining` (SHUTDOWN_DRAIN_MS; default 0). */
  drainMs?: number | undefined;
  /** The sign-in's settings; default: MCP_PUBLIC_URL and OAUTH_ALLOW_PRIVATE_CLIENT_IDS of the environment. */
  oauth?: OAuthSettings;
  /** Live subscriptions' seams (see McpAppOptions): the event bus, the stream bound, the listen check, 2025 sessions. */
  subscriptions?: Pick<McpAppOptions, 'bus' | 'maxSubscriptions' | 'beforeListen' | 'closeListens' | 'sessions'>;
  /** Test only (MCP_CONFORMANCE_FIXTURES): serve the conformance suite's fixtures too (src/conformance/). */
  conformanceFixtures?: boolean;
}

export interface McpServerHandle {
  url: string;
  server: Server;
  stop(): Promise<void>;
}

/**
 * Starts the MCP gateway on the given runtime (which it does not close). Extra Host/Origin names come from
 * MCP_ALLOWED_HOSTS and browser clients' origins from MCP_ALLOWED_ORIGINS, read here because the options are fixed by
 * the embedded launcher (both are validated with the other variables at start-up).
 */
export async function startMcp(opts: McpOptions, runtime: Runtime): Promise<McpServerHandle> {
  const logger = createLogger(opts.logLevel, 'mcp');
  const app = createMcpApp({
    runtime, logger, trustProxy: trustProxy(opts.trustProxy), allowedHosts: allowedHosts(process.env.MCP_ALLOWED_HOSTS),
    allowedOrigins: allowedOrigins(process.env.MCP_ALLOWED_ORIGINS),
    metrics: opts.metrics === false ? false : { token: opts.metricsToken },
    oauth: opts.oauth ?? oauthSettings(process.env),
    conformanceFixtures: opts.conformanceFixtures ?? false,
    ...(opts.subscriptions ?? liveSubscriptions({ deps: runtime.deps, changes: runtime.changes, drain: runtime.drain, logger })),
  });
  const server = await listen(app, opts.port, opts.host);
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    // Listen streams end first, with their completion result, so their clients re-listen on another replica while
    // this one drains; then the drain as before.
    stop: async () => {
      runtime.drain.begin();
      await app.closeMcp();
      await drainServer(server, runtime.drain, opts.drainMs ?? 0);
    },
  };
}
