import type { RequestHandler, Response } from 'express';
import { RETRY_AFTER_UNAVAILABLE_S } from '@tt/domain';
import { withDeadline } from '@tt/store';

// Work an answer starts but does not wait for (a background run) leaves the request's deadline with this.
export { withoutDeadline } from '@tt/store';
import { OUTCOME_UNKNOWN_MESSAGE, UNAVAILABLE_MESSAGE } from './errors.js';

/** REQUEST_DEADLINE_MS's default: a request's database work is abandoned after this long and it answers 503. */
export const DEFAULT_REQUEST_DEADLINE_MS = 5000;

/**
 * How long after its deadline a request that still has not answered (it waits on something other than the database)
 * is answered 503 by the deadline itself.
 */
export const DEADLINE_GRACE_MS = 500;

/** REQUEST_DEADLINE_MS (checked at start by each app's config), or the default; 0 turns the deadline off. */
export function requestDeadlineMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.REQUEST_DEADLINE_MS?.trim();
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : DEFAULT_REQUEST_DEADLINE_MS;
}

export interface RequestDeadlineOptions {
  /** The deadline, ms from the moment the middleware runs (default REQUEST_DEADLINE_MS, 5000; 0 = none). */
  ms?: number | undefined;
  /** Requests that stream for long on purpose (an MCP `subscriptions/listen`) and get no deadline. */
  skip?: (req: Parameters<RequestHandler>[0]) => boolean;
}

/** Headers of a request's own answer that must not go out with the deadline's answer in its place. */
const HELD_ANSWER_HEADERS = ['content-length', 'etag', 'location', 'last-modified'] as const;

/**
 * A deadline per request. Every statement the request runs (its transaction included) is bounded by it on the client
 * side (the store's `withDeadline`): one that cannot finish in time is abandoned with its connection, no statement
 * starts after it (so a write past it is rolled back, never committed later), and the error answers 503
 * `service_unavailable` with Retry-After, as a database outage does. A write already sent is the exception: its
 * outcome is waited for past the deadline, within the store's grace, and answered (a late 201, or 504
 * `outcome_unknown` when it never came). A request that still has no answer `DEADLINE_GRACE_MS` after its deadline
 * (it waits on something else) is answered 503 here, unless a write of it is on its way or was answered late (then
 * once the grace is over too, and 504 `outcome_unknown`: it may have committed).
 *
 * Mount it after the body parser: the rest of the request runs inside its deadline's context.
 */
export function requestDeadline(o: RequestDeadlineOptions = {}): RequestHandler {
  const ms = o.ms ?? requestDeadlineMs();
  return (req, res, next) => {
    if (ms <= 0 || o.skip?.(req)) return next();
    // The response's own end, before later layers wrap it (the Idempotency-Key layer holds answers back).
    const end = res.end.bind(res) as (body: string) => Response;
    withDeadline(ms, (deadline) => {
      let timedOut = false;
      let timer: NodeJS.Timeout;
      const check = () => {
        if (res.headersSent || res.writableEnded) return;
        // A write on its way, or one answered after the deadline: its outcome is the answer, until the grace ends.
        const waits = deadline.committing || deadline.extended;
        const until = deadline.outcomeBy + DEADLINE_GRACE_MS;
        if (waits && Date.now() < until) {
          timer = setTimeout(check, until - Date.now());
          timer.unref();
          return;
        }
        timedOut = true;
        // An answer the request built and holds back (the Idempotency-Key layer holds one while its record commits)
        // has set headers of its own: its length would cut or stall this one, and its ETag or Location would lie.
        for (const name of HELD_ANSWER_HEADERS) res.removeHeader(name);
        res.setHeader('content-type', 'application/json; charset=utf-8');
        if (waits) {
          res.statusCode = 504;
          end(JSON.stringify({ error: { code: 'outcome_unknown', message: OUTCOME_UNKNOWN_MESSAGE } }));
          req.log?.warn({ deadlineMs: ms }, 'request answered 504 outcome_unknown after its deadline and grace');
          return;
        }
        res.statusCode = 503;
        res.setHeader('retry-after', String(RETRY_AFTER_UNAVAILABLE_S));
        end(JSON.stringify({ error: { code: 'service_unavailable', message: UNAVAILABLE_MESSAGE } }));
        req.log?.warn({ deadlineMs: ms }, 'request answered 503 at its deadline');
      };
      timer = setTimeout(check, ms + DEADLINE_GRACE_MS);
      timer.unref();
      res.once('close', () => {
        clearTimeout(timer);
        // Answered in time: what it left running (a job it started) is no longer bound by its deadline.
        if (!timedOut && res.writableFinished) deadline.settled = true;
      });
      next();
    });
  };
}

/**
 * The MCP gateway's deadline: every JSON-RPC request but `subscriptions/listen`, a stream that stays open on purpose
 * (each change it sends reads the database outside any request). Mount it after the JSON body parser.
 */
export function mcpRequestDeadline(ms?: number): RequestHandler {
  return requestDeadline({ ms, skip: (req) => (req.body as { method?: unknown } | null)?.method === 'subscriptions/listen' });
}
