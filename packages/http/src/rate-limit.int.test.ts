import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimiter } from './rate-limit.js';

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

  it('keeps other keys apart', async () => {
    const limiter = createRateLimiter(2, redis);
    const [a, b] = [`a-${randomBytes(4).toString('hex')}`, `b-${randomBytes(4).toString('hex')}`];
    const answers = await Promise.all([a, b, a, b, a].map((k) => limiter.consume(k)));
    expect(answers.map((x) => x.allowed)).toEqual([true, true, true, true, false]);
  });
});
