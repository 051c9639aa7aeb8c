/**
 * How soon a lost Redis connection tries again: 50 ms more each attempt, at most every 2 s, so a Redis that is back
 * is seen within about 2 s (the rate limit's shared budget, the queue, the worker's readiness). ioredis 6's default
 * doubles the wait up to 5 s plus jitter, which after an outage of a few seconds left every process on its fallback
 * for up to 5 s more; this is the wait ioredis 5 had.
 */
export const redisRetryStrategy = (times: number): number => Math.min(times * 50, 2000);
