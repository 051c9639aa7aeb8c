import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimiter, leaseCap } from './rate-limit.js';

// Needs TEST_REDIS_URL (CI sets it).
describe.runIf(process.env.TEST_REDIS_URL)('the shared rate limit, batched per key', () => {
  let redis: Redis;
  let calls = 0;

  beforeAll(async () => {
    redis = new Redis(process.env.TEST_REDIS_URL!);
    if (redis.status !== 'ready') await new Promise((r) => redis.once('ready', r));
    // Counts the budget's calls to Redis (the limiter's script); the real client answers them.
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = ((command: Parameters<Redis['sendCommand']>[0], stream?: unknown) => {
      if (/^eval/i.test(command.name)) calls++;
      return send(command, stream as never);
    }) as Redis['sendCommand'];
  });
  afterAll(() => redis?.disconnect());

  it('spends one point a request, in fewer calls, and tells each request its own place in the window', async () => {
    const limiter = createRateLimiter(5, redis);
    const key = `batch-${randomBytes(4).toString('hex')}`;
    calls = 0;
    const answers = await Promise.all(Array.from({ length: 8 }, () => limiter.consume(key)));
    expect(answers.map((a) => [a.allowed, a.remaining])).toEqual([
      [true, 4], [true, 3], [true, 2], [true, 1], [true, 0], [false, 0], [false, 0], [false, 0],
    ]);
    expect(answers.every((a) => a.resetSeconds > 0 && a.resetSeconds <= 60)).toBe(true);
    // The first request's call, then the seven that arrived while it was in flight, together.
    expect(calls).toBe(2);
    expect(Number(await redis.get(`tt:rl:${key}`))).toBe(8);
    // Alone, a request is a call of its own, as before.
    expect(await limiter.consume(key)).toMatchObject({ allowed: false, remaining: 0 });
    expect(calls).toBe(3);
    expect(limiter.fallback).toBe(false);
  });

  it('spends a request\'s points (a bulk call: one per item), batched with the others in order', async () => {
    const limiter = createRateLimiter(20, redis);
    const key = `points-${randomBytes(4).toString('hex')}`;
    calls = 0;
    const answers = await Promise.all([1, 10, 3, 8, 1].map((points) => limiter.consume(key, points)));
    expect(answers.map((a) => [a.allowed, a.remaining])).toEqual([[true, 19], [true, 9], [true, 6], [false, 0], [false, 0]]);
    expect(calls).toBe(2);
    expect(Number(await redis.get(`tt:rl:${key}`))).toBe(23);
  });

  it('from 50 a minute, leases points ahead: a key\'s steady requests rarely call Redis, each still gets its own count, and the budget is never exceeded', async () => {
    expect([leaseCap(49), leaseCap(120), leaseCap(5000), leaseCap(1e8)]).toEqual([0, 2, 64, 64]);
    const limit = 5000;
    const [a, b] = [createRateLimiter(limit, redis), createRateLimiter(limit, redis)];
    const key = `lease-${randomBytes(4).toString('hex')}`;
    calls = 0;
    const mine = [];
    for (let i = 0; i < 300; i++) mine.push(await a.consume(key));
    // One call for the first request, then leases of 1, 2, 4, ... 64 points: about a call per 64 requests.
    expect(calls).toBeLessThanOrEqual(12);
    expect(mine.every((x) => x.allowed)).toBe(true);
    // Each request has its own count: remaining falls by one a request in this process.
    expect(mine.map((x) => x.remaining)).toEqual(mine.map((_, i) => limit - 1 - i));
    // What the lease took ahead is counted in Redis: under a lease and a half more than was spent (the next lease is
    // taken when less than half of one is left).
    const counted = Number(await redis.get(`tt:rl:${key}`));
    expect(counted).toBeGreaterThanOrEqual(300);
    expect(counted).toBeLessThan(300 + 1.5 * leaseCap(limit));
    // Another process sees the count with this one's lease in it, and its requests take the counts after it.
    const theirs = await b.consume(key);
    expect(theirs.remaining).toBe(limit - counted - 1);
  });

  it('concurrent requests of a key take one lease at a time, each still with a count of its own', async () => {
    const limit = 5000;
    const limiter = createRateLimiter(limit, redis);
    const key = `burst-${randomBytes(4).toString('hex')}`;
    for (let i = 0; i < 20; i++) await limiter.consume(key);
    const burst = await Promise.all(Array.from({ length: 300 }, () => limiter.consume(key)));
    const counts = burst.map((x) => limit - x.remaining);
    expect(new Set(counts).size).toBe(300);
    const counted = Number(await redis.get(`tt:rl:${key}`));
    expect(counted).toBeGreaterThanOrEqual(320);
    expect(counted).toBeLessThan(320 + 1.5 * leaseCap(limit));
  });

  it('two processes leasing one key never give it more than its limit, and refuse at most two leases a process early', async () => {
    const limit = 200;
    const [a, b] = [createRateLimiter(limit, redis), createRateLimiter(limit, redis)];
    const key = `share-${randomBytes(4).toString('hex')}`;
    let allowed = 0;
    for (let i = 0; i < 2 * limit; i++) if ((await (i % 2 ? a : b).consume(key)).allowed) allowed++;
    expect(allowed).toBeLessThanOrEqual(limit);
    expect(allowed).toBeGreaterThanOrEqual(limit - 2 * 2 * leaseCap(limit));
    // Both refuse from then on, with the 429's figures.
    for (const l of [a, b]) expect(await l.consume(key)).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('keeps other keys apart', async () => {
    const limiter = createRateLimiter(2, redis);
    const [a, b] = [`a-${randomBytes(4).toString('hex')}`, `b-${randomBytes(4).toString('hex')}`];
    const answers = await Promise.all([a, b, a, b, a].map((k) => limiter.consume(k)));
    expect(answers.map((x) => x.allowed)).toEqual([true, true, true, true, false]);
  });
});
