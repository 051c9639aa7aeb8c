import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, freePort, startTopology, type Topology } from '../../scripts/topology/index.mjs';
import { PrivateRedis } from '../../apps/worker/src/test/processes.js';
import { Receiver } from '../../apps/worker/src/test/receiver.js';
import { missingAndDoubled } from './webhook-receiver.js';

/*
 * Redis killed (SIGKILL, as a crash) under load, then started again on its append-only file (production Redis keeps
 * one, see docs/operations.md): the built api x2 behind the proxy, mcp and worker on a fresh PostgreSQL database and
 * a Redis of the test's own (the shared one is never touched). REST requests and MCP tool calls, reads and writes,
 * keep answering; api and mcp stay ready with Redis degraded and their rate limits fall back to a per-process budget
 * and come back, saying so once each way; the worker is not ready meanwhile; and every task's notification and
 * task.created webhook, written over REST or MCP before, during or after the outage, arrives exactly once.
 */
const PG = process.env.TEST_DATABASE_URL;
const REDIS = process.env.TEST_REDIS_URL;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const readyOf = (url: string) =>
  fetch(`${url}/ready`, { signal: AbortSignal.timeout(5000) }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }), () => ({ status: 0, body: undefined }));

describe.skipIf(!PG || !REDIS)('Redis killed under load', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tt-redis-outage-'));
  let redis: PrivateRedis;
  let db: { url: string; drop(): Promise<void> };
  let topo: Topology;
  const receiver = new Receiver();
  const lines: Array<{ name: string; line: string }> = [];

  beforeAll(async () => {
    redis = new PrivateRedis(await freePort(), { dir });
    await redis.start();
    db = await createDatabase(PG!);
    await receiver.start();
    topo = await startTopology({
      databaseUrl: db.url, redisUrl: redis.url, apiReplicas: 2, ports: { proxy: 0, mcp: 0, worker: 0, api: 0 },
      queuePrefix: `tt-redis-outage-${Date.now()}`,
      // A short lock, so jobs the worker held when Redis died run again soon after it is back (their effect once);
      // the webhook receiver is on 127.0.0.1.
      env: { RATE_LIMIT_PER_MINUTE: '100000', LOG_LEVEL: 'info', WORKER_LOCK_DURATION_MS: '2000', WEBHOOK_ALLOW_PRIVATE: 'true' },
      onLog: (name, line) => void lines.push({ name, line }),
    });
  });

  afterAll(async () => {
    await topo?.stop();
    await receiver.stop();
    await redis?.stop();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('REST and MCP serve and stay ready (Redis degraded), the worker is not ready, and every notification and webhook arrives once', async () => {
    const admin = { authorization: `Bearer ${topo.adminToken}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown, headers: Record<string, string> = admin) =>
      ((await (await fetch(`${topo.apiUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as { data: any }).data;
    const ws = await post('/admin/v1/workspaces', { name: 'Redis Outage', plan: 'business' });
    const person = async (login: string) => {
      const u = await post(`/admin/v1/workspaces/${ws.id}/users`, { name: login, login, isAdmin: login === 'alice' });
      const k = await post(`/admin/v1/users/${u.id}/keys`, { scopes: ['tasks:read', 'tasks:write', 'projects:write'] });
      return { id: u.id as string, token: k.token as string };
    };
    const alice = await person('alice');
    const bob = await person('bob');
    await post(`/admin/v1/workspaces/${ws.id}/webhooks`, { url: receiver.url, events: ['task.created'] });
    const auth = { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' };
    const project = await post('/v1/projects', { name: 'Outage', key: 'OUT' }, auth);
    const boardId = project.boards[0].id as string;

    type Phase = 'before' | 'outage' | 'after';
    let phase: Phase = 'before';
    let loading = true;
    const created: string[] = [];
    const seen: Record<Phase, Record<string, number>> = { before: {}, outage: {}, after: {} };
    const count = (p: Phase, what: string) => void (seen[p][what] = (seen[p][what] ?? 0) + 1);

    // Two REST clients through the proxy, each creating a task assigned to bob (one notification and one webhook
    // each) and reading a list.
    const rest = async (n: number) => {
      for (let i = 0; loading; i++) {
        const p = phase;
        const w = await fetch(`${topo.apiUrl}/v1/tasks`, { method: 'POST', headers: auth, body: JSON.stringify({ boardId, title: `Load ${n}.${i}`, assigneeIds: [bob.id] }) }).catch(() => undefined);
        count(p, `rest write ${w?.status ?? 'network error'}`);
        if (w?.status === 201) created.push(((await w.json()) as { data: { id: string } }).data.id);
        else await w?.text();
        const r = await fetch(`${topo.apiUrl}/v1/tasks?limit=5`, { headers: auth }).catch(() => undefined);
        count(p, `rest read ${r?.status ?? 'network error'}`);
        await r?.text();
        await sleep(20);
      }
    };
    // An MCP client doing the same through create_task and search_tasks (stateless JSON answers).
    let rpcId = 0;
    const tool = async (name: string, args: object): Promise<{ outcome: string; result?: any }> => {
      const res = await fetch(topo.mcpUrl, {
        method: 'POST',
        headers: { ...auth, accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name, arguments: args } }),
      }).catch(() => undefined);
      if (!res) return { outcome: 'network error' };
      if (res.status !== 200) return { outcome: `http ${res.status}` };
      const body = (await res.json()) as { result?: { isError?: boolean; structuredContent?: unknown } };
      return body.result && !body.result.isError ? { outcome: 'ok', result: body.result.structuredContent } : { outcome: 'tool error' };
    };
    const agent = async () => {
      for (let i = 0; loading; i++) {
        const p = phase;
        const w = await tool('create_task', { board: boardId, title: `Agent ${i}`, assignees: [bob.id] });
        count(p, `mcp create_task ${w.outcome}`);
        if (w.outcome === 'ok') created.push(w.result.id);
        count(p, `mcp search_tasks ${(await tool('search_tasks', { project: 'OUT', limit: 5 })).outcome}`);
        await sleep(20);
      }
    };
    // Every process's /ready, every 200 ms.
    const probes: Record<Phase, Record<string, number>> = { before: {}, outage: {}, after: {} };
    const prober = async () => {
      while (loading) {
        const p = phase;
        const keys = await Promise.all(topo.processes().map(async ({ name, url }) => {
          const r = await readyOf(url);
          return `${name.replace(/-\d$/, '')} ${r.status} ${r.body?.status}${r.body?.degraded?.length ? ` degraded=${r.body.degraded.join(',')}` : ''}`;
        }));
        // A round that Redis's stop or start overtook (the phase changed while it ran) counts in neither phase.
        if (phase === p) for (const key of keys) probes[p][key] = (probes[p][key] ?? 0) + 1;
        await sleep(200);
      }
    };
    const load = Promise.all([rest(1), rest(2), agent(), prober()]);

    await sleep(2000);
    phase = 'outage';
    await redis.stop();
    await sleep(1000);
    const fallbackMetrics = await fetch(`${topo.apiReplicaUrls[0]}/metrics`).then((r) => r.text());
    await sleep(3000);
    await redis.start();
    const restartedAt = Date.now();
    phase = 'after';
    await sleep(2000);
    loading = false;
    await load;

    // Every task (before, during and after the outage, REST or MCP) notifies bob once and is delivered to the webhook once.
    let inbox: string[] = [];
    for (let i = 0; i < 300; i++) {
      const r = await fetch(`${topo.apiUrl}/admin/v1/users/${bob.id}/notifications?limit=10000`, { headers: admin });
      inbox = ((await r.json()) as { data: Array<{ taskId: string; kind: string }> }).data.filter((x) => x.kind === 'assigned').map((x) => x.taskId);
      if (inbox.length >= created.length && missingAndDoubled(receiver, created)[0] === 0) break;
      await sleep(100);
    }
    const deliveredAfterMs = Date.now() - restartedAt;
    const once = new Set(inbox);
    const [webhooksLost, webhooksDoubled] = missingAndDoubled(receiver, created);
    const report = {
      seen, probes, created: created.length,
      notificationsLost: created.filter((id) => !once.has(id)).length,
      notificationsDoubled: inbox.length - once.size,
      webhooksLost,
      webhooksDoubled,
      deliveredAfterMs,
    };
    console.log(`redis outage: ${JSON.stringify(report)}`);
    const afterMetrics = await fetch(`${topo.apiReplicaUrls[0]}/metrics`).then((r) => r.text());

    // Clients saw only successes, through the outage too.
    for (const p of ['before', 'outage', 'after'] as const) {
      expect(Object.keys(seen[p]).sort(), p).toEqual(['mcp create_task ok', 'mcp search_tasks ok', 'rest read 200', 'rest write 201']);
    }
    expect(seen.outage['rest write 201']).toBeGreaterThan(10);
    expect(seen.outage['mcp create_task ok']).toBeGreaterThan(5);
    // api and mcp stayed ready, reporting Redis degraded while it was away; the worker was not ready meanwhile.
    for (const who of ['api', 'mcp']) {
      for (const p of ['before', 'outage', 'after'] as const) for (const k of Object.keys(probes[p]).filter((k) => k.startsWith(`${who} `))) expect(k).toMatch(new RegExp(`^${who} 200 ready`));
      expect(probes.outage[`${who} 200 ready degraded=redis`], who).toBeGreaterThan(5);
    }
    expect(Object.keys(probes.before).filter((k) => k.startsWith('worker'))).toEqual(['worker 200 ready']);
    expect(Object.keys(probes.outage).filter((k) => k.startsWith('worker'))).toContain('worker 503 not_ready');
    for (const { name, url } of topo.processes()) {
      expect((await readyOf(url)).body, name).toMatchObject({ status: 'ready', degraded: [] });
    }
    // The rate limit fell back to a per-process budget and came back, saying so once each way in each process.
    expect(fallbackMetrics).toMatch(/^tt_rate_limit_fallback 1$/m);
    expect(afterMetrics).toMatch(/^tt_rate_limit_fallback 0$/m);
    const logged = (name: string, msg: string) => lines.filter((l) => l.name === name && l.line.includes(`"msg":"${msg}`)).length;
    for (const name of ['api-1', 'api-2', 'mcp']) {
      expect([logged(name, 'rate limit: Redis unreachable'), logged(name, 'rate limit: Redis is back')], name).toEqual([1, 1]);
    }
    // Nothing lost, nothing doubled.
    expect([report.notificationsLost, report.notificationsDoubled, report.webhooksLost, report.webhooksDoubled]).toEqual([0, 0, 0, 0]);
    expect(inbox).toHaveLength(created.length);
  });
});
