import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { metricsRegistry } from './metrics.js';
import { createRateLimiter } from './rate-limit.js';
import { createDrain, readiness } from './readiness.js';

describe('readiness', () => {
  it('is ready with the optional checks failing, naming them degraded', () => {
    expect(readiness({ database: true, redis: true }, { optional: ['redis'] })).toEqual({ ok: true, body: { status: 'ready', checks: { database: true, redis: true }, degraded: [] } });
    expect(readiness({ database: true, redis: false }, { optional: ['redis'] })).toEqual({ ok: true, body: { status: 'ready', checks: { database: true, redis: false }, degraded: ['redis'] } });
  });

  it('is not ready when a required check fails (the worker needs Redis)', () => {
    expect(readiness({ database: false, redis: false }, { optional: ['redis'] })).toMatchObject({ ok: false, body: { status: 'not_ready', degraded: ['redis'] } });
    expect(readiness({ database: true, redis: false, queue: false })).toMatchObject({ ok: false, body: { status: 'not_ready', degraded: [] } });
  });

  it('is draining, not ready, once shutdown began', () => {
    const drain = createDrain();
    expect(drain.draining).toBe(false);
    drain.begin();
    expect(readiness({ database: true }, { draining: drain.draining })).toEqual({ ok: false, body: { status: 'draining', checks: { database: true }, degraded: [] } });
  });
});

const gauge = async () => (await metricsRegistry.getSingleMetricAsString('tt_rate_limit_fallback')).split('\n').find((l) => l.startsWith('tt_rate_limit_fallback '));

describe('rate limit fallback', () => {
  it.runIf(process.env.TEST_REDIS_URL)('counts per process while Redis is unreachable and returns to the shared budget, logging each change once', async () => {
    const logs: string[] = [];
    const log = { warn: (_o: object, msg: string) => void logs.push(msg), info: (_o: object | string, msg?: string) => void logs.push(msg ?? String(_o)) };
    // Not connected yet: the client is down as far as the limiter can tell.
    const redis = new Redis(process.env.TEST_REDIS_URL!, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    try {
      const limiter = createRateLimiter(3, redis, log as never);
      const key = `fallback-test-${Date.now()}-${Math.random()}`;
      const first = await limiter.consume(key);
      const second = await limiter.consume(key);
      expect([first.allowed, first.remaining, second.remaining]).toEqual([true, 2, 1]);
      expect(limiter.fallback).toBe(true);
      expect(await gauge()).toBe('tt_rate_limit_fallback 1');
      expect(logs).toEqual(['rate limit: Redis unreachable, falling back to a per-process limit']);

      await redis.connect();
      // The shared budget (in Redis) knows nothing of the fallback's two requests.
      const shared = await limiter.consume(key);
      expect([shared.allowed, shared.remaining]).toEqual([true, 2]);
      expect(limiter.fallback).toBe(false);
      expect(await gauge()).toBe('tt_rate_limit_fallback 0');
      await limiter.consume(key);
      await limiter.consume(key);
      expect((await limiter.consume(key)).allowed).toBe(false);
      expect(logs).toEqual(['rate limit: Redis unreachable, falling back to a per-process limit', 'rate limit: Redis is back, the shared limit applies again']);
      await redis.del(`tt:rl:${key}`);
    } finally {
      redis.disconnect();
    }
  });

  it('without Redis is the per-process limiter and never reports a fallback', async () => {
    const limiter = createRateLimiter(1);
    expect((await limiter.consume('k')).allowed).toBe(true);
    expect((await limiter.consume('k')).allowed).toBe(false);
    expect(limiter.fallback).toBe(false);
  });
});
