import { ApiError, TaskTrackerClient, type RetryInfo } from '@tt/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWorkspace } from './test/harness.js';

// A file of its own: the retry waits for the real one-minute window to reset, and other files run meanwhile.
let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  // With TEST_REDIS_URL the limiter is the shared Redis one, as in production.
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '3', ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {}) });
  ws = await h.workspace();
});
afterAll(() => h.close());

describe('SDK and the real rate limit', () => {
  it('reports the 429 when retries are off, then waits retry-after and succeeds when they are on', { timeout: 120_000 }, async () => {
    const strict = new TaskTrackerClient({ baseUrl: h.base, apiKey: ws.token, maxRetries: 0 });
    for (let i = 0; i < 3; i++) await strict.me();
    expect(strict.lastRateLimit).toMatchObject({ limit: 3, remaining: 0 });

    const limited = await strict.me().catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(ApiError);
    expect(limited).toMatchObject({ status: 429, code: 'rate_limited', rateLimit: { limit: 3, remaining: 0 } });
    const retryAfter = (limited as ApiError).retryAfter!;
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);

    const retries: RetryInfo[] = [];
    const patient = new TaskTrackerClient({ baseUrl: h.base, apiKey: ws.token, onRetry: (r) => retries.push(r) });
    const me = await patient.me();
    expect(me.key.id).toBe(ws.keyId);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.error.code).toBe('rate_limited');
    expect(retries[0]!.delayMs).toBe(retries[0]!.error.retryAfter! * 1000);
    expect(patient.lastRateLimit).toMatchObject({ limit: 3, remaining: 2 });
  });

  it('gives up at once when retry-after exceeds maxRetryDelayMs', async () => {
    const other = await h.workspace();
    const c = new TaskTrackerClient({ baseUrl: h.base, apiKey: other.token, maxRetryDelayMs: 100 });
    for (let i = 0; i < 3; i++) await c.me();
    const retries: RetryInfo[] = [];
    const e = await new TaskTrackerClient({ baseUrl: h.base, apiKey: other.token, maxRetryDelayMs: 100, onRetry: (r) => retries.push(r) })
      .me()
      .catch((x: unknown) => x);
    expect(e).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(retries).toEqual([]);
  });
});
