import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labelValues, sampleValue } from '../../../packages/http/src/metrics-sample.js';
import { startHarness, type Harness } from './test/harness.js';

const scrape = async (h: Harness, headers: Record<string, string> = {}) => {
  const res = await fetch(`${h.base}/metrics`, { headers });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
};

const count = (text: string, labels: Record<string, string>) =>
  sampleValue(text, 'tt_http_request_duration_seconds_count', { server: 'api', ...labels }) ?? 0;

describe('api /metrics', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('times requests by route template and status, never by the raw path', async () => {
    const ws = await h.workspace();
    const before = (await scrape(h)).text;
    expect((await h.call(ws.token, 'GET', '/me')).status).toBe(200);
    // A 404 from the use case goes through the app-level error handler and keeps its route template.
    expect((await h.call(ws.token, 'GET', '/tasks/NOPE-4242')).status).toBe(404);
    expect((await h.call(ws.token, 'GET', '/tasks/NOPE-4243/comments')).status).toBe(404);
    expect((await h.call(ws.token, 'GET', '/no-such-thing')).status).toBe(404);
    expect((await h.op('GET', '/jobs/stats')).status).toBe(200);
    // A route on several paths names the one that matched.
    expect((await fetch(`${h.base}/docs/`)).status).toBe(200);

    const m = await scrape(h);
    expect(m.status).toBe(200);
    expect(m.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const delta = (labels: Record<string, string>) => count(m.text, labels) - count(before, labels);
    expect(delta({ method: 'GET', route: '/v1/me', status: '200' })).toBe(1);
    expect(delta({ method: 'GET', route: '/v1/tasks/:ref', status: '404' })).toBe(1);
    expect(delta({ method: 'GET', route: '/v1/tasks/:ref/comments', status: '404' })).toBe(1);
    expect(delta({ method: 'GET', route: '/admin/v1/jobs/stats', status: '200' })).toBe(1);
    expect(delta({ method: 'GET', route: '/docs/', status: '200' })).toBe(1);
    // A path no route knows is not a label value of its own.
    expect(delta({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(sampleValue(m.text, 'tt_http_request_duration_seconds_bucket', { route: '/v1/me', status: '200', le: '+Inf' })).toBeGreaterThanOrEqual(1);

    const routes = labelValues(m.text, 'tt_http_request_duration_seconds_count', 'route');
    expect(routes).toContain('/metrics');
    expect(m.text).not.toContain('NOPE-');
    expect(routes.filter((r) => r !== 'unmatched').every((r) => r.startsWith('/'))).toBe(true);
  });

  it('shows the queue gauges, the default process metrics and the metric families of the other processes', async () => {
    const { text } = await scrape(h);
    for (const name of ['tt_jobs_waiting', 'tt_jobs_active', 'tt_jobs_delayed', 'tt_jobs_failed', 'tt_jobs_completed', 'tt_outbox_pending']) {
      expect(sampleValue(text, name), name).toBeGreaterThanOrEqual(0);
    }
    expect(sampleValue(text, 'tt_queue_up')).toBe(1);
    expect(sampleValue(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sampleValue(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE tt_mcp_tool_calls_total counter');
    expect(text).toContain('# TYPE tt_webhook_deliveries_total counter');
  });

  it('counts a change waiting in the outbox', async () => {
    // Stop the relay so the outbox row of a new task stays pending, as it would while Redis is away.
    await h.runtime.jobs.relay.stop();
    const ws = await h.workspace();
    const project = await h.call(ws.token, 'POST', '/projects', { key: 'MET', name: 'Metrics' });
    expect(project.status).toBe(201);
    const pendingBefore = sampleValue((await scrape(h)).text, 'tt_outbox_pending')!;
    // Assigned to someone else: the create queues their notification (a board without rules queues no automation job).
    const other = await ws.user();
    expect((await h.call(ws.token, 'POST', '/tasks', { projectId: project.body.data.id, title: 'Queued', assigneeIds: [other.id] })).status).toBe(201);
    expect(sampleValue((await scrape(h)).text, 'tt_outbox_pending')).toBe(pendingBefore + 1);
  });
});

describe('api /metrics with METRICS_TOKEN', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ METRICS_TOKEN: 'metrics-token-0123456789' });
  });
  afterAll(() => h.close());

  it('answers 401 without the token and the metrics with it', async () => {
    expect((await scrape(h)).status).toBe(401);
    expect((await scrape(h, { authorization: 'Bearer wrong-token-0123456789' })).status).toBe(401);
    const ok = await scrape(h, { authorization: 'Bearer metrics-token-0123456789' });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('tt_http_request_duration_seconds');
  });
});
