import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from './config.js';
import { startHarness, type Harness } from './test/harness.js';

it('defaults to 120 requests per minute per key', () => {
  expect(ConfigSchema.parse({}).RATE_LIMIT_PER_MINUTE).toBe(120);
});

describe('rate limit (in memory)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ RATE_LIMIT_PER_MINUTE: '5' });
  });
  afterAll(() => h.close());

  it('sets the headers on every response and answers 429 rate_limited with retry-after', async () => {
    const ws = await h.workspace();
    const first = await h.call(ws.token, 'GET', '/me');
    expect(first.headers.get('x-ratelimit-limit')).toBe('5');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('4');
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(60);
    // The IETF draft's fields carry the same figures.
    expect(first.headers.get('ratelimit-policy')).toBe('"default";q=5;w=60');
    expect(first.headers.get('ratelimit')).toBe(`"default";r=4;t=${reset}`);
    for (let i = 0; i < 4; i++) await h.call(ws.token, 'GET', '/me');
    const limited = await h.call(ws.token, 'GET', '/me');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit-policy')).toBe('"default";q=5;w=60');
    expect(limited.headers.get('ratelimit')).toBe(`"default";r=0;t=${limited.headers.get('retry-after')}`);
    const other = await h.workspace();
    expect((await h.call(other.token, 'GET', '/me')).status).toBe(200);
  });
});

describe.runIf(process.env.TEST_REDIS_URL)('rate limit shared through Redis', () => {
  it('two API processes draw on one budget per key', async () => {
    const env = { RATE_LIMIT_PER_MINUTE: '6', REDIS_URL: process.env.TEST_REDIS_URL! };
    const a = await startHarness(env);
    const b = await startHarness(env);
    try {
      // The two harnesses share Redis but not a database, so both limiters are driven with one key id.
      const ws = await a.workspace();
      const limiterA = a.runtime.limiter;
      const limiterB = b.runtime.limiter;
      const key = `key:shared-${Date.now()}`;
      const results = [];
      for (let i = 0; i < 6; i++) results.push(await (i % 2 ? limiterA : limiterB).consume(key));
      expect(results.every((r) => r.allowed)).toBe(true);
      expect((await limiterA.consume(key)).allowed).toBe(false);
      expect((await limiterB.consume(key)).allowed).toBe(false);
      expect((await a.call(ws.token, 'GET', '/me')).headers.get('x-ratelimit-limit')).toBe('6');
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('rate-limit headers in the OpenAPI document', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('declares RateLimit-Policy, RateLimit and x-ratelimit-* on every /v1 operation, and Retry-After on 429', async () => {
    const doc = (await fetch(`${h.base}/v1/openapi.json`).then((r) => r.json())) as any;
    for (const name of ['RateLimit-Policy', 'RateLimit', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'Retry-After']) {
      expect(doc.components.headers[name], name).toMatchObject({ description: expect.any(String), schema: expect.any(Object) });
    }
    let operations = 0;
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        operations++;
        for (const [code, response] of Object.entries<any>(op.responses)) {
          const where = `${method.toUpperCase()} ${path} ${code}`;
          expect(response.headers?.RateLimit, where).toEqual({ $ref: '#/components/headers/RateLimit' });
          expect(response.headers?.['RateLimit-Policy'], where).toEqual({ $ref: '#/components/headers/RateLimit-Policy' });
          expect(response.headers?.['x-ratelimit-remaining'], where).toBeDefined();
          if (code === '429') expect(response.headers['Retry-After'], where).toEqual({ $ref: '#/components/headers/Retry-After' });
        }
      }
    }
    expect(operations).toBeGreaterThan(20);
  });
});
