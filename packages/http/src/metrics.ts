import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DomainError, keys } from '@tt/domain';
import { isUnavailable } from './errors.js';
import { defineOnPrototype } from './request-prototype.js';
import type { JobStats } from '@tt/jobs';

/**
 * One registry per process. In embedded mode api, mcp and the job handlers share the process, so one /metrics (on
 * the api port) shows all of them; the `server` label of the HTTP histogram tells their requests apart.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** Request durations by route template (never the raw URL, so ids do not explode the series) and status. */
export const httpRequestDuration = new Histogram({
  name: 'tt_http_request_duration_seconds',
  help: 'HTTP request duration by server, method, route template and status',
  labelNames: ['server', 'method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

/** How an MCP tool call ended: `ok`, `error` (a domain error), `invalid` (bad arguments), `denied`, `internal`. */
export type ToolOutcome = 'ok' | 'error' | 'invalid' | 'denied' | 'internal';

export const mcpToolCalls = new Counter({
  name: 'tt_mcp_tool_calls_total',
  help: 'MCP tool calls by tool and outcome',
  labelNames: ['tool', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const mcpToolDuration = new Histogram({
  name: 'tt_mcp_tool_call_duration_seconds',
  help: 'MCP tool call duration by tool and outcome',
  labelNames: ['tool', 'outcome'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

/** Webhook delivery attempts by outcome; the webhook sender increments it (`webhookDeliveries.inc({ outcome })`). */
export const webhookDeliveries = new Counter({
  name: 'tt_webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

/**
 * 1 while this process's rate limit stands in for the shared one (Redis unreachable: each process counts its own
 * budget), 0 while the budget is shared through Redis or there is no Redis to share it.
 */
export const rateLimitFallback = new Gauge({
  name: 'tt_rate_limit_fallback',
  help: '1 while the rate limit falls back to a per-process budget because Redis is unreachable, else 0',
  registers: [metricsRegistry],
});

const JOB_GAUGES: Array<[keyof JobStats, string, string]> = [
  ['waiting', 'tt_jobs_waiting', 'Jobs waiting in the queue'],
  ['active', 'tt_jobs_active', 'Jobs being handled'],
  ['delayed', 'tt_jobs_delayed', 'Jobs waiting for a retry'],
  ['failed', 'tt_jobs_failed', 'Jobs in the failed set'],
  ['completed', 'tt_jobs_completed', 'Finished jobs still kept by the queue'],
  ['outboxPending', 'tt_outbox_pending', 'Outbox rows not yet relayed to the queue'],
];
// Their own registry, so a scrape while the queue is unreachable leaves them out instead of showing a healthy 0.
const jobRegistry = new Registry();
const jobGauges = JOB_GAUGES.map(([stat, name, help]) => ({ stat, gauge: new Gauge({ name, help, registers: [jobRegistry] }) }));
const queueUp = new Gauge({
  name: 'tt_queue_up',
  help: '1 when the queue and the outbox answered this scrape, 0 when they did not (the job gauges are then absent)',
  registers: [jobRegistry],
});

const DENIED = new Set(['insufficient_scope', 'forbidden', 'ip_not_allowed', 'api_disabled', 'plan_required']);

/** The outcome label of a tool call that threw. */
export function toolOutcome(e: unknown): ToolOutcome {
  if (!(e instanceof DomainError)) return isUnavailable(e) ? 'error' : 'internal';
  if (e.code === 'invalid_request') return 'invalid';
  return DENIED.has(e.code) ? 'denied' : 'error';
}

/** Starts the timing of a tool call; call the result with the outcome when it ends. */
export function timeToolCall(tool: string): (outcome: ToolOutcome) => void {
  const end = mcpToolDuration.startTimer({ tool });
  return (outcome) => {
    end({ outcome });
    mcpToolCalls.inc({ tool, outcome });
  };
}

const ROUTE = Symbol('routeTemplate');
const ROUTE_VALUE = Symbol('route');
type Tracked = IncomingMessage & { [ROUTE]?: string; [ROUTE_VALUE]?: unknown; path: string; baseUrl: string };

/** `req.route`, which Express sets when it dispatches to a route: its template is noted then (see httpMetrics). */
const ROUTE_ACCESSOR = {
  enumerable: true,
  get(this: Tracked) {
    return this[ROUTE_VALUE];
  },
  set(this: Tracked, value: unknown) {
    this[ROUTE_VALUE] = value;
    const path = value ? templateOf((value as { path?: unknown }).path, this.path) : undefined;
    if (path) this[ROUTE] = joinRoute(this.baseUrl, path);
  },
};

/**
 * Times every request into the histogram. The route template is taken when Express matches a route (req.route set
 * while req.baseUrl still holds the router's mount path), because an error handled at the app level later sees the
 * base restored to ''. Requests answered before any route matched (unknown paths, 401 and 429 of the
 * middleware in front of the routers) are labelled `unmatched`.
 */
export function httpMetrics(server: string): RequestHandler {
  return (req, res, next) => {
    const tracked = req as Request & Tracked;
    defineOnPrototype(req, 'route', ROUTE_ACCESSOR);
    const end = httpRequestDuration.startTimer();
    res.once('finish', () => {
      end({ server, method: req.method, route: tracked[ROUTE] ?? 'unmatched', status: String(res.statusCode) });
    });
    next();
  };
}

/**
 * A route's template. A route on several paths (`app.get(['/a', '/b'])`) names the literal one that matched (req.path
 * is then relative to the router), or all of them when a parameter matched.
 */
function templateOf(path: unknown, requestPath: string): string | undefined {
  if (typeof path === 'string') return path;
  if (!Array.isArray(path)) return undefined;
  const paths = path.filter((p): p is string => typeof p === 'string');
  return paths.find((p) => p === requestPath) ?? (paths.length ? paths.join('|') : undefined);
}

function joinRoute(base: string, path: string): string {
  if (!base) return path;
  return path === '/' ? base : base + path;
}

export interface MetricsRouteOptions {
  /** The queue gauges come from this job system, read at each scrape. */
  jobs?: { stats(): Promise<JobStats> } | undefined;
  /** With a token, scrapes must send `Authorization: Bearer <token>` (METRICS_TOKEN). */
  token?: string | undefined;
}

/** GET /metrics in the Prometheus text format. */
export function metricsRoute(o: MetricsRouteOptions = {}): RequestHandler {
  return async (req, res, next) => {
    try {
      if (o.token) {
        const given = keys.bearerToken(req.headers.authorization);
        if (!given || !keys.sameSecret(given, o.token)) {
          res.status(401).type('text/plain').send('Send the metrics token as Authorization: Bearer <METRICS_TOKEN>\n');
          return;
        }
      }
      const jobs = o.jobs ? await refreshJobGauges(o.jobs) : '';
      res.type(metricsRegistry.contentType).send((await metricsRegistry.metrics()) + jobs);
    } catch (e) {
      next(e);
    }
  };
}

/** Reads the job system's counts into the gauges; their exposition text (only tt_queue_up 0 while the queue is unreachable). */
async function refreshJobGauges(jobs: NonNullable<MetricsRouteOptions['jobs']>): Promise<string> {
  try {
    const stats = await jobs.stats();
    for (const { stat, gauge } of jobGauges) gauge.set(stats[stat]);
    queueUp.set(1);
    return await jobRegistry.metrics();
  } catch {
    queueUp.set(0);
    return (await jobRegistry.getSingleMetricAsString('tt_queue_up')) + '\n';
  }
}
