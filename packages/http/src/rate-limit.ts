import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { sendError } from './errors.js';
import { rateLimitFallback } from './metrics.js';

export interface RateLimiter {
  readonly limit: number;
  /** True while Redis is unreachable and this process counts its own budget. */
  readonly fallback: boolean;
  /** Spends `points` (default 1: a request; a bulk call spends one per item) of the key's budget. */
  consume(key: string, points?: number): Promise<{ allowed: boolean; remaining: number; resetSeconds: number }>;
}

/** While the limiter falls back after a failed command, how often one request tries the shared budget again. */
const RETRY_SHARED_MS = 1000;

/** Where a request stands in its key's window: the points spent with it counted, and when the window resets. */
interface Spent {
  consumed: number;
  msBeforeNext: number;
}

/** A limiter's answer either way: it resolves under the limit and rejects with the same figures over it. */
const spent = (r: RateLimiterRes): Spent => ({ consumed: r.consumedPoints, msBeforeNext: r.msBeforeNext });
async function spend(limiter: RateLimiterAbstract, key: string, points: number): Promise<Spent> {
  try {
    return spent(await limiter.consume(key, points));
  } catch (e) {
    if (e instanceof RateLimiterRes) return spent(e);
    throw e;
  }
}

/**
 * Spends a key's shared budget (a request's points: one, or one per item of a bulk call), in as few calls to Redis as
 * the traffic allows: while a key's call is in flight, that key's next requests wait and go together in one call that
 * spends all their points, and each learns its own place in the window (the call's count less the points spent after
 * it). The budget is spent
 * exactly as one call a request would, and a request waits at most for the call ahead of it; under a key's steady
 * traffic (a script, an agent's parallel calls) a call carries several requests. A failed call fails each of its
 * requests and those waiting for the next.
 */
function batchedByKey(shared: RateLimiterAbstract): (key: string, points: number) => Promise<Spent> {
  type Waiter = { points: number; resolve: (s: Spent) => void; reject: (e: unknown) => void };
  // A key is here while its call is in flight, with the requests for its next call.
  const next = new Map<string, Waiter[]>();
  const send = (key: string, batch: Waiter[]) => {
    const total = batch.reduce((n, w) => n + w.points, 0);
    spend(shared, key, total).then(
      (s) => {
        let after = total;
        for (const w of batch) {
          after -= w.points;
          w.resolve({ consumed: s.consumed - after, msBeforeNext: s.msBeforeNext });
        }
        const waiting = next.get(key)!;
        if (!waiting.length) next.delete(key);
        else {
          next.set(key, []);
          send(key, waiting);
        }
      },
      (e: unknown) => {
        // Those waiting for the next call fail with this one, rather than wait on a Redis that has just failed.
        const waiting = next.get(key)!;
        next.delete(key);
        for (const w of [...batch, ...waiting]) w.reject(e);
      },
    );
  };
  return (key, points) =>
    new Promise<Spent>((resolve, reject) => {
      const waiting = next.get(key);
      if (waiting) waiting.push({ points, resolve, reject });
      else {
        next.set(key, []);
        send(key, [{ points, resolve, reject }]);
      }
    });
}

/**
 * A fixed one-minute window per key. With Redis every API and MCP process draws on the same budget (the calls to it
 * batched per key, see batchedByKey). While Redis is unreachable (not connected, or a command fails) a per-process
 * memory limiter stands in: requests keep being served and limited, each process on its own budget. Entering and
 * leaving the fallback is logged once each and shown by the `tt_rate_limit_fallback` gauge; the shared budget is
 * tried again as soon as the connection is back. A Redis that stays connected but does not answer (commands fail
 * after REDIS_COMMAND_TIMEOUT_MS) falls back the same way.
 */
export function createRateLimiter(limit: number, redis?: Redis, log?: Pick<Logger, 'warn' | 'info'>): RateLimiter {
  const opts = { points: limit, duration: 60, keyPrefix: 'tt:rl' };
  const memory = new RateLimiterMemory(opts);
  // rejectIfRedisNotReady: a disconnected client answers at once instead of queueing the command.
  const shared = redis ? batchedByKey(new RateLimiterRedis({ ...opts, storeClient: redis, rejectIfRedisNotReady: true })) : undefined;
  let fallback = false;
  // After a failed command (a Redis that does not answer fails each after its command timeout) the shared budget is
  // tried again by one request a second at most; the others count in memory at once instead of waiting too.
  let retryAt = 0;
  const fallBack = (on: boolean, reason?: string) => {
    if (on === fallback) return;
    fallback = on;
    rateLimitFallback.set(on ? 1 : 0);
    if (on) log?.warn({ reason }, 'rate limit: Redis unreachable, falling back to a per-process limit');
    else log?.info('rate limit: Redis is back, the shared limit applies again');
  };
  const take = async (key: string, points: number): Promise<Spent> => {
    if (!shared || !redis) return spend(memory, key, points);
    if (redis.status !== 'ready') {
      fallBack(true, `redis ${redis.status}`);
      return spend(memory, key, points);
    }
    if (fallback && Date.now() < retryAt) return spend(memory, key, points);
    retryAt = Date.now() + RETRY_SHARED_MS;
    try {
      const r = await shared(key, points);
      fallBack(false);
      return r;
    } catch (e) {
      fallBack(true, e instanceof Error ? e.message : String(e));
      return spend(memory, key, points);
    }
  };
  return {
    limit,
    get fallback() {
      return fallback;
    },
    async consume(key, points = 1) {
      const { consumed, msBeforeNext } = await take(key, points);
      const resetSeconds = Math.ceil(msBeforeNext / 1000);
      if (consumed <= limit) return { allowed: true, remaining: limit - consumed, resetSeconds };
      return { allowed: false, remaining: 0, resetSeconds: Math.max(1, resetSeconds) };
    },
  };
}

/**
 * The IETF draft's fields (draft-ietf-httpapi-ratelimit-headers): one policy named "default", `q` requests per `w`
 * seconds, and what is left of it: `r` requests remaining, `t` seconds until the window resets.
 */
export function rateLimitFields(limit: number, remaining: number, resetSeconds: number): Record<'RateLimit-Policy' | 'RateLimit', string> {
  return {
    'RateLimit-Policy': `"default";q=${limit};w=60`,
    RateLimit: `"default";r=${remaining};t=${resetSeconds}`,
  };
}

/**
 * Counts the request against the key (or, before authentication succeeds, the client address; `pointsOf`: what it
 * spends, default one) and sets
 * x-ratelimit-limit, x-ratelimit-remaining and x-ratelimit-reset (seconds until the window resets), and the same
 * figures as the IETF draft's RateLimit-Policy and RateLimit.
 */
export function rateLimit(
  limiter: RateLimiter, keyOf: (req: Parameters<RequestHandler>[0]) => string, pointsOf?: (req: Parameters<RequestHandler>[0]) => number,
): RequestHandler {
  return async (req, res, next) => {
    try {
      const r = await limiter.consume(keyOf(req), pointsOf?.(req) ?? 1);
      res.setHeader('x-ratelimit-limit', String(limiter.limit));
      res.setHeader('x-ratelimit-remaining', String(r.remaining));
      res.setHeader('x-ratelimit-reset', String(r.resetSeconds));
      for (const [name, value] of Object.entries(rateLimitFields(limiter.limit, r.remaining, r.resetSeconds))) res.setHeader(name, value);
      if (!r.allowed) {
        res.setHeader('retry-after', String(r.resetSeconds));
        return sendError(res, 'rate_limited', `Rate limit of ${limiter.limit} requests per minute exceeded; retry in ${r.resetSeconds} s`);
      }
      next();
    } catch (e) {
      next(e);
    }
  };
}
