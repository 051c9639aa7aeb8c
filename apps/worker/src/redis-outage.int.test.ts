import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabaseUrl, dropTestDatabase } from '../../../packages/store/src/testing.js';
import { freePort, PrivateRedis, spawnService, type ServiceProcess } from './test/processes.js';
import { uniquePrefix } from './test/stack.js';

/*
 * Redis killed (SIGKILL, as a crash) under a write load against the api, mcp and worker processes, then started again
 * on its append-only file (production Redis keeps one, see docs/operations.md): api and mcp keep answering (REST
 * requests and MCP tool calls, reads and writes) and stay ready with Redis degraded, the worker is not ready, and
 * every notification of every write, made over REST or MCP, arrives exactly once.
 */

const REDIS = process.env.TEST_REDIS_URL;
const PG = process.env.TEST_DATABASE_URL;
const ADMIN = 'outage-test-operator-token';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function call(base: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(base + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** A webhook receiver on 127.0.0.1: the delivery ids received for each task of a task.created event. */
async function webhookReceiver() {
  const byTask = new Map<string, Set<string>>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { task?: { id: string } } };
      const id = body.data.task?.id;
      if (body.type === 'task.created' && id) byTask.set(id, (byTask.get(id) ?? new Set()).add(String(req.headers['x-tracker-delivery'])));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, byTask };
}

const readyOf = (url: string) =>
  fetch(`${url}/ready`).then(async (r) => ({ status: r.status, body: (await r.json()) as any }), () => ({ status: 0, body: undefined }));

function tracked(p: ServiceProcess): ServiceProcess {
  cleanups.push(async () => {
    if (p.proc.exitCode === null && p.proc.signalCode === null) {
      p.proc.kill('SIGKILL');
      await p.exited;
    }
  });
  return p;
}

const logLines = (p: ServiceProcess, msg: string) =>
  p.output().split('\n').filter((l) => l.includes(`"msg":"${msg}`)).length;

describe.runIf(REDIS && PG)('Redis killed under a write load', () => {
  it('api and mcp serve and stay ready (redis degraded), the worker is not ready, and every notification and webhook arrives once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tt-redis-outage-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const redis = new PrivateRedis(await freePort(), { dir });
    await redis.start();
    cleanups.push(() => redis.stop());
    const databaseUrl = (await createTestDatabaseUrl())!;
    cleanups.push(() => dropTestDatabase(databaseUrl));

    const env = { DATABASE_URL: databaseUrl, REDIS_URL: redis.url, QUEUE_PREFIX: uniquePrefix() };
    const api = tracked(await spawnService('apps/api/src/main.ts', 'PORT', { ...env, ADMIN_TOKEN: ADMIN, RATE_LIMIT_PER_MINUTE: '100000', SHUTDOWN_DRAIN_MS: '0', WEBHOOK_ALLOW_PRIVATE: 'true' }));
    // A short lock, so jobs the worker held when Redis died run again soon after it is back (their effect once).
    // The webhook receiver is on 127.0.0.1.
    const worker = tracked(await spawnService('apps/worker/src/main.ts', 'WORKER_PORT', { ...env, WORKER_LOCK_DURATION_MS: '2000', WEBHOOK_ALLOW_PRIVATE: 'true' }));
    const mcp = tracked(await spawnService('apps/mcp/src/main.ts', 'MCP_PORT', { ...env, RATE_LIMIT_PER_MINUTE: '100000', SHUTDOWN_DRAIN_MS: '0' }));

    const ws = (await call(api.url, ADMIN, 'POST', '/admin/v1/workspaces', { name: 'Outage' })).body.data;
    const person = async (login: string) => {
      const u = (await call(api.url, ADMIN, 'POST', `/admin/v1/workspaces/${ws.id}/users`, { name: login, login, isAdmin: login === 'alice' })).body.data;
      const k = (await call(api.url, ADMIN, 'POST', `/admin/v1/users/${u.id}/keys`, { scopes: ['tasks:read', 'tasks:write', 'projects:write'] })).body.data;
      return { id: u.id as string, token: k.token as string };
    };
    const receiver = await webhookReceiver();
    expect((await call(api.url, ADMIN, 'POST', `/admin/v1/workspaces/${ws.id}/webhooks`, { url: receiver.url, events: ['task.created'] })).status).toBe(201);
    const alice = await person('alice');
    const bob = await person('bob');
    const project = (await call(api.url, alice.token, 'POST', '/v1/projects', { name: 'Outage', key: 'OUT' })).body.data;
    const boardId = project.boards[0].id as string;

    // One MCP tool call (stateless JSON answers): 'ok', 'tool error' or the HTTP status, and the structured result.
    let rpcId = 0;
    const tool = async (name: string, args: object): Promise<{ outcome: string; result?: any }> => {
      const res = await fetch(`${mcp.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name, arguments: args } }),
      }).catch(() => undefined);
      if (!res) return { outcome: 'network error' };
      if (res.status !== 200) return { outcome: `http ${res.status}` };
      const body = (await res.json()) as { result?: { isError?: boolean; structuredContent?: unknown } };
      return body.result && !body.result.isError ? { outcome: 'ok', result: body.result.structuredContent } : { outcome: 'tool error' };
    };

    // The load: two REST clients, each creating a task assigned to bob (one notification each) and reading the list,
    // and an MCP client doing the same through create_task and search_tasks.
    type Phase = 'before' | 'outage' | 'after';
    let phase: Phase = 'before';
    let loading = true;
    const created: string[] = [];
    const statuses: Record<Phase, Record<string, number>> = { before: {}, outage: {}, after: {} };
    const count = (p: Phase, what: string) => void (statuses[p][what] = (statuses[p][what] ?? 0) + 1);
    const client = async (n: number) => {
      for (let i = 0; loading; i++) {
        const p = phase;
        const write = await call(api.url, alice.token, 'POST', '/v1/tasks', { boardId, title: `Load ${n}.${i}`, assigneeIds: [bob.id] }).catch(() => ({ status: 0, body: undefined }));
        count(p, `write ${write.status}`);
        if (write.status === 201) created.push(write.body.data.id);
        const read = await call(api.url, alice.token, 'GET', '/v1/tasks?limit=5').catch(() => ({ status: 0, body: undefined }));
        count(p, `read ${read.status}`);
        await sleep(20);
      }
    };
    const agent = async () => {
      for (let i = 0; loading; i++) {
        const p = phase;
        const write = await tool('create_task', { board: boardId, title: `Agent ${i}`, assignees: [bob.id] });
        count(p, `mcp create_task ${write.outcome}`);
        if (write.outcome === 'ok') created.push(write.result.id);
        count(p, `mcp search_tasks ${(await tool('search_tasks', { project: 'OUT', limit: 5 })).outcome}`);
        await sleep(20);
      }
    };
    const probes: Record<Phase, Record<string, number>> = { before: {}, outage: {}, after: {} };
    const prober = async () => {
      while (loading) {
        const p = phase;
        const [a, w, m] = await Promise.all([readyOf(api.url), readyOf(worker.url), readyOf(mcp.url)]);
        const key = (who: string, r: { status: number; body: any }) => `${who} ${r.status} ${r.body?.status}${r.body?.degraded?.length ? ` degraded=${r.body.degraded.join(',')}` : ''}`;
        probes[p][key('api', a)] = (probes[p][key('api', a)] ?? 0) + 1;
        probes[p][key('worker', w)] = (probes[p][key('worker', w)] ?? 0) + 1;
        probes[p][key('mcp', m)] = (probes[p][key('mcp', m)] ?? 0) + 1;
        await sleep(200);
      }
    };
    const load = Promise.all([client(1), client(2), agent(), prober()]);

    await sleep(2000);
    phase = 'outage';
    await redis.stop();
    await sleep(1000);
    const fallbackMetrics = await fetch(`${api.url}/metrics`).then((r) => r.text());
    await sleep(3000);
    const writtenBeforeRestart = created.length;
    await redis.start();
    const restartedAt = Date.now();
    phase = 'after';
    await sleep(2000);
    loading = false;
    await load;

    // Every task created (before, during and after the outage) notifies bob exactly once.
    let seen: string[] = [];
    for (let i = 0; i < 300; i++) {
      const list = await call(api.url, ADMIN, 'GET', `/admin/v1/users/${bob.id}/notifications?limit=10000`);
      seen = (list.body.data as Array<{ taskId: string; kind: string }>).filter((x) => x.kind === 'assigned').map((x) => x.taskId);
      if (seen.length >= created.length && created.every((id) => receiver.byTask.has(id))) break;
      await sleep(100);
    }
    const deliveredAfterMs = Date.now() - restartedAt;
    const once = new Set(seen);
    const lost = created.filter((id) => !once.has(id)).length;
    const doubled = seen.length - once.size;
    const webhooksMissing = created.filter((id) => !receiver.byTask.has(id)).length;
    const webhooksDoubled = [...receiver.byTask.values()].filter((ids) => ids.size > 1).length;
    const afterMetrics = await fetch(`${api.url}/metrics`).then((r) => r.text());

    console.log(JSON.stringify({ statuses, probes, created: created.length, writtenBeforeRestart, delivered: seen.length, lost, doubled, webhooksMissing, webhooksDoubled, deliveredAfterMs }));

    // Clients saw only successes, through the outage too.
    for (const p of ['before', 'outage', 'after'] as const) {
      expect(Object.keys(statuses[p]).sort()).toEqual(['mcp create_task ok', 'mcp search_tasks ok', 'read 200', 'write 201']);
    }
    expect(statuses.outage['write 201']).toBeGreaterThan(10);
    expect(statuses.outage['mcp create_task ok']).toBeGreaterThan(5);
    // api and mcp stayed ready, reporting Redis degraded while it was away; the worker was not ready meanwhile.
    for (const who of ['api', 'mcp']) {
      for (const p of ['before', 'outage', 'after'] as const) for (const k of Object.keys(probes[p]).filter((k) => k.startsWith(`${who} `))) expect(k).toMatch(new RegExp(`^${who} 200 ready`));
      expect(probes.outage[`${who} 200 ready degraded=redis`], who).toBeGreaterThan(5);
    }
    expect(Object.keys(probes.outage).filter((k) => k.startsWith('worker'))).toContain('worker 503 not_ready');
    expect(Object.keys(probes.before).filter((k) => k.startsWith('worker'))).toEqual(['worker 200 ready']);
    expect((await readyOf(worker.url)).status).toBe(200);
    expect((await readyOf(api.url)).body).toEqual({ status: 'ready', checks: { database: true, redis: true }, degraded: [] });
    // The rate limit fell back to a per-process budget and came back, saying so once each way.
    expect(fallbackMetrics).toMatch(/^tt_rate_limit_fallback 1$/m);
    expect(afterMetrics).toMatch(/^tt_rate_limit_fallback 0$/m);
    expect(logLines(api, 'rate limit: Redis unreachable')).toBe(1);
    expect(logLines(api, 'rate limit: Redis is back')).toBe(1);
    expect(logLines(mcp, 'rate limit: Redis unreachable')).toBe(1);
    expect(logLines(mcp, 'rate limit: Redis is back')).toBe(1);
    expect((await readyOf(mcp.url)).body).toEqual({ status: 'ready', checks: { database: true, redis: true }, degraded: [] });
    // Nothing lost, nothing doubled.
    expect({ lost, doubled, webhooksMissing, webhooksDoubled }).toEqual({ lost: 0, doubled: 0, webhooksMissing: 0, webhooksDoubled: 0 });
    expect(seen).toHaveLength(created.length);
  }, 90_000);
});
