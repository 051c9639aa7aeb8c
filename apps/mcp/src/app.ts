import type { ServerEventBus } from '@modelcontextprotocol/server';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { DomainError } from '@tt/domain';
import { createRateLimiter, errorHandler, httpMetrics, mcpRequestDeadline, metricsRoute, notFoundRoute, rateLimit, readyRoute, requestLogger, type Runtime } from '@tt/http';
import { type AllowedOrigins, mcpCors } from './edge/cors.js';
import { deepArgumentsGuard, envelopeGuard } from './edge/envelope-guard.js';
import { eraEndpoint } from './edge/era.js';
import { hostGuard, rpcIdOf, sendRpcError } from './edge/host-guard.js';
import { FLOOD_FACTOR, mcpLimits } from './edge/limits.js';
import { authenticateMcp, oauthRoutes, type OAuthSettings, scopeStepUp } from './oauth/index.js';
import { createServerPool, toolScopes } from './server.js';
import type { ToolContext } from './tool.js';
import { parseSession } from './edge/session.js';
import { tracedLogger } from './edge/trace.js';
import type { LegacySessions } from './sessions/index.js';

export interface McpAppOptions {
  runtime: Pick<Runtime, 'deps' | 'limiter' | 'ready' | 'jobs'> & Partial<Pick<Runtime, 'drain' | 'redis'>>;
  logger: Logger;
  trustProxy: boolean | number | string;
  /** Host names accepted in Host and Origin headers of /mcp. */
  allowedHosts: readonly string[];
  /** Origins of browser-based clients allowed to call /mcp cross-origin, with CORS (MCP_ALLOWED_ORIGINS); default none. */
  allowedOrigins?: AllowedOrigins;
  /** GET /metrics (with an optional bearer token); false where another server of the process serves it (embedded). */
  metrics?: { token?: string | undefined } | false;
  /** The sign-in's settings (MCP_PUBLIC_URL, OAUTH_ALLOW_PRIVATE_CLIENT_IDS); default: derived from each request, public client documents only. */
  oauth?: OAuthSettings;
  /**
   * Seam for live subscriptions (src/subscriptions/): the change-event bus `subscriptions/listen` streams hear
   * (default: in this process only), and the open streams allowed per process.
   */
  bus?: ServerEventBus;
  maxSubscriptions?: number;
  /** Test only: serve the conformance suite's fixtures beside the real tools (src/conformance/); default off. */
  conformanceFixtures?: boolean;
  /**
   * Seam for live subscriptions: called before a `subscriptions/listen` request is served, with the key's context and
   * the HTTP response. It may refuse (throw a DomainError: answered as a JSON-RPC error) or keep `res` to end the
   * stream later (revocation: `res.destroy()` ends it). Protocol traffic, so it spends no tool-call budget.
   */
  beforeListen?: (req: Request, res: Response, ctx: ToolContext) => Promise<ListenScope | void> | ListenScope | void;
  /** Ends the listen streams the seam serves itself (task streams, sessions' GET streams), when the gateway drains. */
  closeListens?: () => void;
  /**
   * 2025-era sessions (src/sessions/): Mcp-Session-Id, server-to-client requests during a call, resources/subscribe
   * with a GET stream. Without them the 2025 side is stateless (no session id; GET and DELETE answer 405).
   */
  sessions?: LegacySessions;
}

/** What beforeListen may hand back: a wrapper the listen is served inside (the subscriptions tie the stream to its key there). */
export type ListenScope = <T>(serve: () => Promise<T>) => Promise<T>;

/** The MCP gateway as an Express app plus what ends its open streams (call `closeMcp` when the process drains). */
export type McpApp = Express & { closeMcp(): Promise<void> };

/** The MCP gateway as an Express app, with no listening socket. */
export function createMcpApp(o: McpAppOptions): McpApp {
  const { deps, limiter } = o.runtime;
  const oauthSettings = o.oauth ?? { allowPrivateClientIds: false };
  const app = express();
  app.disable('x-powered-by');
  // No hash of every body as an ETag: the versioned objects of the REST API set their own.
  app.set('etag', false);
  app.set('trust proxy', o.trustProxy);
  app.use(httpMetrics('mcp'));
  app.use(requestLogger(o.logger));
  app.get('/health', (_req, res) => void res.json({ status: 'ok' }));
  // Without Redis the gateway still serves (per-process rate limit, jobs kept in the outbox): degraded, still ready.
  app.get('/ready', readyRoute({ checks: () => o.runtime.ready(), optional: ['redis'], drain: o.runtime.drain }));
  if (o.metrics !== false) app.get('/metrics', metricsRoute({ jobs: o.runtime.jobs, token: o.metrics?.token }));

  // Same limiter keys as REST, so a key has one budget across both.
  const keyed = (req: Request) => (req.actor ? `key:${req.actor.key.id}` : `ip:${req.ip ?? 'unknown'}`);
  // Protocol traffic's ceiling: shared through Redis like the budget; its fallback is the budget's, logged there.
  const flood = createRateLimiter(limiter.limit * FLOOD_FACTOR, o.runtime.redis);
  const origins = o.allowedOrigins ?? new Set<string>();
  app.use('/mcp', hostGuard(o.allowedHosts, { origins }), mcpCors(origins));
  // Without a session (2026-07-28 and sessionless 2025 clients): no SSE stream to open and nothing to delete.
  const notAllowed = (_req: Request, res: Response) => {
    res.setHeader('allow', 'POST');
    sendRpcError(res, 405, o.sessions
      ? 'Method not allowed without a session: GET opens and DELETE ends the session named by Mcp-Session-Id (from initialize)'
      : 'Method not allowed: this server is stateless; send JSON-RPC messages with POST');
  };
  const endpoint = eraEndpoint({
    pool: createServerPool({ fixtures: o.conformanceFixtures ?? false, sessions: o.sessions }),
    bus: o.bus,
    maxSubscriptions: o.maxSubscriptions,
    sessions: o.sessions,
    onerror: (err) => o.logger.debug({ err: err.message }, 'mcp request refused'),
  });
  const contextOf = (req: Request, session: ToolContext['session']): ToolContext => ({
    actor: req.actor!, deps, log: tracedLogger(req.log ?? o.logger, req.body), requestId: req.id === undefined ? undefined : String(req.id), session,
    retryInSeconds: req.toolRetryIn,
  });
  // /mcp/readonly: the same server narrowed to read-only tools, for clients that cannot set headers.
  const paths = ['/mcp', '/mcp/readonly'];
  // GET opens a 2025-era session's stream (resources/updated of its subscriptions); DELETE ends the session.
  const sessionRoute = async (req: Request, res: Response, next: NextFunction) => {
    const sessions = o.sessions;
    const sent = req.get('mcp-session-id');
    if (!sessions || sent === undefined) return notAllowed(req, res);
    try {
      const ctx = contextOf(req, undefined);
      const claims = await sessions.check(sent, ctx);
      if (!claims) return sendRpcError(res, 404, 'Session not found: initialize again without Mcp-Session-Id to open a new one', -32001);
      if (req.method === 'DELETE') {
        await sessions.end(claims);
        return void res.status(200).end();
      }
      await sessions.stream(req, res, ctx, claims);
    } catch (e) {
      next(e);
    }
  };
  app.get(paths, authenticateMcp(deps, oauthSettings), sessionRoute);
  app.delete(paths, authenticateMcp(deps, oauthSettings), sessionRoute);
  app.post(
    paths,
    express.json({ limit: '1mb' }),
    mcpRequestDeadline(),
    envelopeGuard,
    authenticateMcp(deps, oauthSettings),
    mcpLimits(limiter, flood, keyed),
    scopeStepUp(toolScopes, oauthSettings),
    deepArgumentsGuard,
    async (req: Request, res: Response, next: NextFunction) => {
      let session;
      try {
        session = parseSession({ readonly: req.get('x-mcp-readonly'), toolsets: req.get('x-mcp-toolsets') }, req.originalUrl.split('?')[0]!.endsWith('/readonly'));
      } catch (e) {
        return sendRpcError(res, 400, (e as Error).message, -32602, rpcIdOf(req.body));
      }
      const ctx = contextOf(req, session);
      if (ctx.log.isLevelEnabled('debug')) ctx.log.debug({ method: (req.body as { method?: unknown } | null)?.method }, 'mcp request');
      try {
        let scope: ListenScope | void = undefined;
        if (o.beforeListen && (req.body as { method?: unknown } | null)?.method === 'subscriptions/listen') scope = await o.beforeListen(req, res, ctx);
        // beforeListen answered (a refusal in JSON-RPC): nothing more to serve.
        if (res.headersSent) return;
        await (scope ? scope(() => endpoint.serve(req, res, ctx)) : endpoint.serve(req, res, ctx));
      } catch (e) {
        next(e);
      }
    },
  );
  // An auth failure is still counted, against the client address, so guessing keys is throttled too.
  app.use('/mcp', async (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (err instanceof DomainError && err.status === 401 && !res.headersSent) {
      return rateLimit(limiter, keyed)(req, res, () => next(err));
    }
    next(err);
  });
  oauthRoutes(app, { deps, limiter, settings: oauthSettings, allowedHosts: o.allowedHosts });
  app.use(notFoundRoute);
  app.use(errorHandler);
  return Object.assign(app, {
    closeMcp: () => {
      o.closeListens?.();
      return endpoint.close();
    },
  });
}
