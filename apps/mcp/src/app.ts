import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { DomainError } from '@tt/domain';
import { errorHandler, httpMetrics, metricsRoute, notFoundRoute, rateLimit, readyRoute, requestLogger, type Runtime } from '@tt/http';
import { type AllowedOrigins, mcpCors } from './edge/cors.js';
import { envelopeGuard } from './edge/envelope-guard.js';
import { hostGuard, sendRpcError } from './edge/host-guard.js';
import { authenticateMcp, oauthRoutes, type OAuthSettings, scopeStepUp } from './oauth/index.js';
import { buildMcpServer, toolScopes } from './server.js';
import { parseSession } from './edge/session.js';

export interface McpAppOptions {
  runtime: Pick<Runtime, 'deps' | 'limiter' | 'ready' | 'jobs'> & Partial<Pick<Runtime, 'drain'>>;
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
}

/** The MCP gateway as an Express app, with no listening socket. */
export function createMcpApp(o: McpAppOptions): Express {
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
  const origins = o.allowedOrigins ?? new Set<string>();
  app.use('/mcp', hostGuard(o.allowedHosts, { origins }), mcpCors(origins));
  // Stateless server: no SSE stream to open and no session to delete.
  const notAllowed = (_req: Request, res: Response) => {
    res.setHeader('allow', 'POST');
    sendRpcError(res, 405, 'Method not allowed: this server is stateless; send JSON-RPC messages with POST');
  };
  // /mcp/readonly: the same server narrowed to read-only tools, for clients that cannot set headers.
  const paths = ['/mcp', '/mcp/readonly'];
  app.get(paths, notAllowed);
  app.delete(paths, notAllowed);
  app.post(
    paths,
    express.json({ limit: '1mb' }),
    envelopeGuard,
    authenticateMcp(deps, oauthSettings),
    rateLimit(limiter, keyed),
    scopeStepUp(toolScopes, oauthSettings),
    async (req: Request, res: Response) => {
      let session;
      try {
        session = parseSession({ readonly: req.get('x-mcp-readonly'), toolsets: req.get('x-mcp-toolsets') }, req.originalUrl.split('?')[0]!.endsWith('/readonly'));
      } catch (e) {
        return sendRpcError(res, 400, (e as Error).message, -32602);
      }
      const server = buildMcpServer({ actor: req.actor!, deps, log: req.log ?? o.logger, requestId: req.id === undefined ? undefined : String(req.id), session });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
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
  return app;
}
