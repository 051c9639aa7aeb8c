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
 * The most points a process leases ahead for one key: a 50th of the limit, at most 64; none under 50 a minute, where
 * every request asks Redis as before. It bounds the lease's slack (see leasesOf).
 */
export const leaseCap = (limit: number): number => Math.min(64, Math.floor(limit / 50));

/** A key's lease: counts of its current window this process took from Redis and has not handed out yet. */
interface Lease {
  /** Ranges of the window's counts, oldest first, each `[from, to]` (the n-th point spent in the window is count n). */
  ranges: Array<[number, number]>;
  left: number;
  /** The highest count of the window this process has heard of (its calls' last points). */
  known: number;
  /** When the window the counts belong to ends (epoch ms): the lease is void after. */
  resetAt: number;
  /** Points the next call to Redis takes ahead (doubles with each call, up to the cap). */
  size: number;
  /** A call that takes more ahead, in flight. */
  refill?: Promise<void>;
}

/**
 * Leases of a shared budget, per key: a call to Redis that a request makes anyway also takes up to `cap` points ahead
 * (1, 2, 4, ... as the key's traffic keeps coming), and the key's next requests in this process spend them without a
 * call; when half a lease is spent, one call takes the next in the background, so under steady traffic a request does
 * not wait on Redis. Each request still gets its own count of the window (its place among every process's requests),
 * so `remaining` and the 429 follow the shared count.
 *
 * The slack, and its bound: points leased and not spent by the window's end are counted as spent. A process holds less
 * than a lease and a half unspent (the next is taken when less than half of one is left), so other processes may see
 * up to 1.5 `cap` points a process more spent than were used (a lower `remaining`, an earlier 429), never fewer:
 * the key never gets more than its limit in a window. Near the limit (less than two leases left) a call takes nothing
 * ahead, so the last points of a window go one request at a time, as without leases. The counts a process hands out
 * are its own lease's, so `remaining` read across processes is not monotonic within a lease.
 */
function leasesOf(limit: number, cap: number, call: (key: string, points: number) => Promise<Spent>) {
  const byKey = new Map<string, Lease>();
  const spendLocal = (l: Lease, points: number, now: number): Spent => {
    let consumed = 0;
    for (let need = points; need > 0;) {
      const r = l.ranges[0]!;
      const take = Math.min(need, r[1] - r[0] + 1);
      consumed = r[0] + take - 1;
      r[0] += take;
      need -= take;
      l.left -= take;
      if (r[0] > r[1]) l.ranges.shift();
    }
    return { consumed, msBeforeNext: l.resetAt - now };
  };
  /** Adds the counts a call took ahead (its last `ahead` points, of those under the limit) to the key's lease. */
  const add = (key: string, s: Spent, ahead: number, now: number) => {
    let l = byKey.get(key);
    const resetAt = now + s.msBeforeNext;
    // Another window: what was left of the last one is void.
    if (!l || l.resetAt <= now || Math.abs(l.resetAt - resetAt) > 1000) {
      l = { ranges: [], left: 0, known: 0, resetAt, size: l?.size ?? 0 };
      byKey.set(key, l);
    }
    l.size = Math.min(cap, Math.max(1, l.size * 2));
    l.known = Math.max(l.known, s.consumed);
    const to = Math.min(s.consumed, limit);
    const from = s.consumed - ahead + 1;
    if (ahead > 0 && from <= to) {
      l.ranges.push([from, to]);
      l.left += to - from + 1;
    }
    if (byKey.size > 10_000) for (const [k, v] of byKey) if (v.resetAt <= now && !v.refill) byKey.delete(k);
  };
  /** Points to take ahead with a call: none near the limit (the last known count within two leases of it). */
  const ahead = (l: Lease | undefined, now: number) => {
    if (!l) return 0;
    // A lease of a window that has ended knows nothing of the next: the traffic it saw still sizes the next lease.
    const known = l.resetAt > now ? l.known : 0;
    return limit - known < 2 * l.size ? 0 : l.size;
  };
  const refill = (key: string, l: Lease) => {
    const size = ahead(l, Date.now());
    if (size === 0) return;
    l.refill = call(key, size).then(
      (s) => add(key, s, size, Date.now()),
      // A failed refill leaves the lease as it was; the next request that needs Redis meets the failure itself.
      () => undefined,
    ).finally(() => {
      l.refill = undefined;
    });
  };
  return {
    /** Spends from the key's lease: undefined when it holds too few points (or none) in the current window. */
    local(key: string, points: number): Spent | undefined {
      const l = byKey.get(key);
      if (!l) return undefined;
      const now = Date.now();
      if (l.resetAt <= now || l.left < points) return undefined;
      const s = spendLocal(l, points, now);
      if (!l.refill && l.left * 2 < l.size) refill(key, l);
      return s;
    },
    /** The refill in flight for the key, if any: a request the lease could not serve waits for it before calling. */
    pending: (key: string): Promise<void> | undefined => byKey.get(key)?.refill,
    /**
     * Spends `points` through Redis, taking points ahead for the key's next requests unless another call is taking
     * some already (one at a time, so that concurrent requests do not each take a lease).
     */
    async remote(key: string, points: number): Promise<Spent> {
      const l = byKey.get(key);
      const extra = cap === 0 || !l || l.refill ? 0 : ahead(l, Date.now());
      // The lease is added before anyone waiting on this call (see pending) goes on.
      const sent = call(key, points + extra).then((s) => {
        if (cap > 0) add(key, s, extra, Date.now());
        return s;
      });
      if (extra > 0) {
        l!.refill = sent.then(() => undefined, () => undefined).finally(() => {
          l!.refill = undefined;
        });
      }
      const s = await sent;
      return { consumed: s.consumed - extra, msBeforeNext: s.msBeforeNext };
    },
  };
}

/**
 * A fixed one-minute window per key. With Redis every API and MCP process draws on the same budget (the calls to it
 * batched per key, see batchedByKey, and, from 50 a minute up, points leased ahead, see leasesOf). While Redis is
 * unreachable (not connected, or a command fails) a per-process memory limiter stands in: requests keep being served and limited, each process on its own budget. Entering and
 * leaving the fallback is logged once each and shown by the `tt_rate_limit_fallback` gauge; the shared budget is
 * tried again as soon as the connection is back. A Redis that stays connected but does not answer (commands fail
 * after REDIS_COMMAND_TIMEOUT_MS) falls back the same way.
 */
export function createRateLimiter(limit: number, redis?: Redis, log?: Pick<Logger, 'warn' | 'info'>): RateLimiter {
  const opts = { points: limit, duration: 60, keyPrefix: 'tt:rl' };
  const memory = new RateLimiterMemory(opts);
  // rejectIfRedisNotReady: a disconnected client answers at once instead of queueing the command.
  const shared = redis ? leasesOf(limit, leaseCap(limit), batchedByKey(new RateLimiterRedis({ ...opts, storeClient: redis, rejectIfRedisNotReady: true }))) : undefined;
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
    // Points this process already took from the shared budget come first, Redis or not.
    const leased = shared.local(key, points) ?? (await shared.pending(key), shared.local(key, points));
    if (leased) return leased;
    if (redis.status !== 'ready') {
      fallBack(true, `redis ${redis.status}`);
      return spend(memory, key, points);
    }
    if (fallback && Date.now() < retryAt) return spend(memory, key, points);
    retryAt = Date.now() + RETRY_SHARED_MS;
    try {
      const r = await shared.remote(key, points);
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
