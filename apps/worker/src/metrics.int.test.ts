import type { Server } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, createRuntime, type Runtime } from '@tt/http';
import { sampleValue } from '../../../packages/http/src/metrics-sample.js';
import { createTestDatabase } from '../../../packages/store/src/testing.js';
import { freePort, PrivateRedis } from './test/processes.js';
import { uniquePrefix } from './test/stack.js';
import { createWorkerApp } from './worker.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

/** A consuming runtime (BullMQ on the given Redis, else the in-process queue) and the worker's HTTP app on it. */
async function startWorkerApp(redisUrl?: string): Promise<{ runtime: Runtime; url: string }> {
  const { databaseUrl, pglite, drop } = await createTestDatabase();
  const runtime = await createRuntime({
    databaseUrl, pglite, redisUrl, rateLimitPerMinute: 1, logger: createLogger('silent', 'test'), consumeJobs: true, queuePrefix: uniquePrefix(),
  });
  const server = await new Promise<Server>((resolve) => {
    const s = createWorkerApp(runtime).listen(0, '127.0.0.1', () => resolve(s));
  });
  cleanups.push(async () => {
    await new Promise((resolve) => server.close(resolve));
    await runtime.close();
    await drop();
  });
  const addr = server.address();
  return { runtime, url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}` };
}

const scrape = (url: string) => fetch(`${url}/metrics`).then(async (r) => ({ status: r.status, text: await r.text() }));

describe('worker /metrics', () => {
  it('shows the queue gauges from the job system, its HTTP durations and the process metrics', async () => {
    const { runtime, url } = await startWorkerApp(process.env.TEST_REDIS_URL);
    expect((await fetch(`${url}/ready`)).status).toBe(200);
    const first = await scrape(url);
    expect(first.status).toBe(200);
    expect(sampleValue(first.text, 'tt_jobs_failed')).toBe(0);
    expect(sampleValue(first.text, 'tt_jobs_waiting')).toBe(0);
    expect(sampleValue(first.text, 'tt_outbox_pending')).toBe(0);
    expect(sampleValue(first.text, 'tt_queue_up')).toBe(1);

    // A job no handler knows fails at once, without retries: the failed gauge shows it at the next scrape.
    await runtime.jobs.queue.add([{ id: `bogus-${Date.now()}`, name: 'no.such.job', payload: {}, timestamp: Date.now() }]);
    await vi.waitFor(async () => expect(sampleValue((await scrape(url)).text, 'tt_jobs_failed')).toBe(1), { timeout: 30_000, interval: 100 });

    const { text } = await scrape(url);
    expect(sampleValue(text, 'tt_http_request_duration_seconds_count', { server: 'worker', method: 'GET', route: '/ready', status: '200' })).toBe(1);
    expect(sampleValue(text, 'tt_http_request_duration_seconds_count', { server: 'worker', method: 'GET', route: '/metrics', status: '200' })).toBeGreaterThanOrEqual(2);
    expect(sampleValue(text, 'process_start_time_seconds')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE tt_webhook_deliveries_total counter');
  });

  it.runIf(process.env.TEST_REDIS_URL)('reports tt_queue_up 0 and leaves the job gauges out while Redis is down', async () => {
    const redis = new PrivateRedis(await freePort());
    await redis.start();
    cleanups.push(() => redis.stop());
    const { url } = await startWorkerApp(redis.url);
    expect(sampleValue((await scrape(url)).text, 'tt_queue_up')).toBe(1);

    await redis.stop();
    const down = await scrape(url);
    expect(down.status).toBe(200);
    expect(sampleValue(down.text, 'tt_queue_up')).toBe(0);
    expect(sampleValue(down.text, 'tt_jobs_waiting')).toBeUndefined();
    expect(sampleValue(down.text, 'tt_jobs_failed')).toBeUndefined();
    expect(sampleValue(down.text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);

    // Back up (the runtime could not close cleanly without it): the gauges return.
    await redis.start();
    await vi.waitFor(async () => expect(sampleValue((await scrape(url)).text, 'tt_jobs_waiting')).toBe(0), { timeout: 30_000, interval: 200 });
    expect(sampleValue((await scrape(url)).text, 'tt_queue_up')).toBe(1);
  });
});
