import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import express, { type Express, type Request } from 'express';
import type { Logger } from 'pino';
import type { JobSystem } from '@tt/jobs';
import { type Deps, DomainError, keys, tasks } from '@tt/domain';
import { authenticateKey, type Drain, errorHandler, requestDeadline, httpMetrics, jsonBody, metricsRoute, notFoundRoute, rateLimit, readyRoute, requestLogger, type RateLimiter } from '@tt/http';
import { operatorRoutes } from './admin/index.js';
import { idempotencyKeys } from './http/idempotency.js';
import { Routes } from './http/route.js';
import { docsPages } from './docs-page.js';
import { buildOpenApi, buildOperatorOpenApi } from './openapi.js';
import { peopleRoutes } from './routes/people/people.routes.js';
import { projectRoutes } from './routes/projects/projects.routes.js';
import { docRoutes } from './routes/docs/docs.routes.js';
import { meetingRoutes } from './routes/meetings/meetings.routes.js';
import { taskRoutes } from './routes/tasks/tasks.routes.js';
import { contextRoutes } from './routes/context/context.routes.js';
import { commentRoutes } from './routes/comments/comments.routes.js';
import { notificationRoutes } from './routes/notifications/notifications.routes.js';
import { timeRoutes } from './routes/time/time.routes.js';
import { activityRoutes } from './routes/activity/activity.routes.js';

export interface ApiDeps {
  deps: Deps;
  logger: Logger;
  limiter: RateLimiter;
  adminToken: string;
  trustProxy: boolean | number | string;
  /** Reports whether the database and queue are reachable (the API serves without Redis: degraded, still ready). */
  ready: () => Promise<Record<string, boolean>>;
  /** The process's shutdown state: `/ready` answers 503 `draining` once it is set. */
  drain?: Pick<Drain, 'draining'> | undefined;
  publicUrl?: string | undefined;
  /** Queue and outbox relay, for the operator's job endpoints. */
  jobs?: JobSystem | undefined;
  /** Bearer token for GET /metrics (METRICS_TOKEN); unset = open. */
  metricsToken?: string | undefined;
}

/**
 * Checks the API serves without: with Redis away, the rate limit falls back to a per-process budget and writes keep
 * their jobs in the outbox until it is back.
 */
const SERVES_WITHOUT = ['redis'] as const;

/**
 * The task a request reads by key or id in its plain form (GET /v1/tasks/{ref} without a query), as the route's path
 * parameter will be; undefined for any other request. A path the route reads differently (another case, a trailing
 * slash, an encoding the decoder refuses) is simply not read ahead: the route reads it on its own.
 */
const TASK_READ_PATH = /^\/tasks\/([^/?]+)$/;
function taskReadByKey(req: Request): string | undefined {
  if (req.method !== 'GET' || req.url.includes('?')) return undefined;
  const m = TASK_READ_PATH.exec(req.path);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return undefined;
  }
}

/** The REST API and operator API as an Express app, with no listening socket. */
export function createApiApp(a: ApiDeps): { app: Express; openapi: object; operatorOpenapi: object } {
  const app = express();
  app.disable('x-powered-by');
  // ETags are the versions of tasks, pages and projects (http/etag.ts), not a hash of every body Express sends.
  app.set('etag', false);
  app.set('trust proxy', a.trustProxy);
  app.set('query parser', 'simple');
  app.use(httpMetrics('api'));
  app.use(requestLogger(a.logger));
  app.get('/health', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/ready', readyRoute({ checks: a.ready, optional: SERVES_WITHOUT, drain: a.drain }));
  // In embedded mode this one endpoint shows the whole process: api, mcp and the job handlers.
  app.get('/metrics', metricsRoute({ jobs: a.jobs, token: a.metricsToken }));
  app.use(docsPages());

  const registry = new OpenAPIRegistry();
  const v1 = express.Router();
  const routes = new Routes(v1, registry, '/v1', a.deps);
  peopleRoutes(routes);
  projectRoutes(routes);
  taskRoutes(routes);
  contextRoutes(routes);
  commentRoutes(routes);
  notificationRoutes(routes);
  timeRoutes(routes);
  docRoutes(routes);
  meetingRoutes(routes);
  activityRoutes(routes);
  // Paths carry their /v1 prefix, so the server is the host root.
  const openapi = buildOpenApi(registry, a.publicUrl ?? '/');

  const keyed = (req: Request) => (req.actor ? `key:${req.actor.key.id}` : `ip:${req.ip ?? 'unknown'}`);
  app.get('/v1/openapi.json', (_req, res) => void res.json(openapi));
  app.use(
    '/v1',
    jsonBody({ limit: '1mb', strict: false }),
    // REQUEST_DEADLINE_MS: database work past it is abandoned and the request answers 503 with Retry-After.
    requestDeadline(),
    // A by-key read's task is read in its key's statement: one round trip to the database instead of two.
    authenticateKey(a.deps, 'api', taskReadByKey),
    // A bulk change spends one point per item: a hundred changes cost what a hundred PATCHes do.
    rateLimit(a.limiter, keyed, (req) => (req.method === 'POST' && req.path === '/tasks/bulk' ? tasks.bulkPoints(req.body) : 1)),
    // After authentication (keys belong to the API key) and the rate limit (a 429 is never stored).
    idempotencyKeys(a.deps),
    v1,
    notFoundRoute,
  );
  // An auth failure is still counted, against the client address, so guessing keys is throttled too.
  app.use('/v1', async (err: unknown, req: Request, res: express.Response, next: express.NextFunction) => {
    if (err instanceof DomainError && err.status === 401 && !res.headersSent) {
      return rateLimit(a.limiter, keyed)(req, res, () => next(err));
    }
    next(err);
  });

  const adminRouter = express.Router();
  // The operator API is described too (GET /admin/v1/openapi.json, behind the operator token): tests fuzz it from there.
  const operatorRegistry = new OpenAPIRegistry();
  const operator = new Routes(adminRouter, operatorRegistry, '/admin/v1', a.deps);
  operatorRoutes(operator, a.deps, a.jobs);
  const operatorOpenapi = buildOperatorOpenApi(operatorRegistry, a.publicUrl ?? '/');
  adminRouter.get('/openapi.json', (_req, res) => void res.json(operatorOpenapi));
  app.use(
    '/admin/v1',
    jsonBody({ limit: '1mb', strict: false }),
    requestDeadline(),
    (req, _res, next) => {
      const token = keys.bearerToken(req.headers.authorization);
      if (!token || !keys.sameSecret(token, a.adminToken)) return next(new DomainError('unauthorized', 'Send the operator token as Authorization: Bearer <ADMIN_TOKEN>'));
      next();
    },
    adminRouter,
    notFoundRoute,
  );
  app.use(notFoundRoute);
  app.use(errorHandler);
  return { app, openapi, operatorOpenapi };
}
