import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OperatorClient } from '@tt/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTopology, type Topology } from '../../scripts/topology/index.mjs';
import { Receiver } from '../../apps/worker/src/test/receiver.js';
import { missingAndDoubled } from './webhook-receiver.js';

/*
 * A PostgreSQL outage under a steady write load: the built api x2, mcp and worker on a private PostgreSQL (the
 * test's own, which it stops and starts; the machine's PostgreSQL is never touched) and the shared Redis. While
 * the database is down clients see 503 service_unavailable with Retry-After, within bounded time, never a 500 (a
 * create whose connection broke after its write was sent may answer 504 outcome_unknown instead: nothing answered 503
 * is stored);
 * after it comes back every process serves again without a restart, every acknowledged write is in the database
 * and its notification and its task.created webhook were delivered exactly once. Gated like the other PostgreSQL suites on TEST_DATABASE_URL
 * (and TEST_REDIS_URL), and on the PostgreSQL 15 server binaries being installed.
 */
const PG = process.env.TEST_DATABASE_URL;
const REDIS = process.env.TEST_REDIS_URL;
const BIN = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';
const OUTAGE_MS = 5000;
const WRITERS = 4;

/** A PostgreSQL cluster of the test's own in a temporary directory (run as the postgres user when we are root). */
class PrivatePostgres {
  readonly dir = mkdtempSync(join(tmpdir(), 'tt-outage-pg-'));
  constructor(readonly port: number) {}
  private run(cmd: string, args: string[]): void {
    const asRoot = process.getuid?.() === 0;
    execFileSync(asRoot ? 'runuser' : join(BIN, cmd), asRoot ? ['-u', 'postgres', '--', join(BIN, cmd), ...args] : args, { stdio: 'pipe' });
  }
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }
  init(): void {
    if (process.getuid?.() === 0) chownSync(this.dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
    this.run('initdb', ['-D', join(this.dir, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync']);
  }
  start(): void {
    this.run('pg_ctl', ['-D', join(this.dir, 'data'), '-o', `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`, '-l', join(this.dir, 'log'), '-w', 'start']);
  }
  /** Fast shutdown: open connections are ended, as a failover or a restart by the provider would. */
  stop(): void {
    this.run('pg_ctl', ['-D', join(this.dir, 'data'), '-m', 'fast', '-w', 'stop']);
  }
  remove(): void {
    try {
      this.stop();
    } catch {
      // already stopped
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

interface Outcome {
  at: number;
  ms: number;
  status: number;
  retryAfter: string | null;
  code?: string;
  key?: string;
  id?: string;
  title: string;
}

describe.skipIf(!PG || !REDIS || !existsSync(join(BIN, 'initdb')))('a PostgreSQL outage under write load', () => {
  let pg: PrivatePostgres;
  let topo: Topology;
  const receiver = new Receiver();
  const lines: Array<{ name: string; line: string }> = [];

  beforeAll(async () => {
    pg = new PrivatePostgres(await freePort());
    pg.init();
    pg.start();
    await receiver.start();
    topo = await startTopology({
      databaseUrl: pg.url, redisUrl: REDIS!, apiReplicas: 2, ports: { proxy: 0, mcp: 0, worker: 0, api: 0 },
      queuePrefix: `tt-outage-${pg.port}-${Date.now()}`,
      // The webhook receiver is on 127.0.0.1.
      env: { RATE_LIMIT_PER_MINUTE: '100000', LOG_LEVEL: 'info', WEBHOOK_ALLOW_PRIVATE: 'true' },
      onLog: (name, line) => void lines.push({ name, line }),
    });
  });

  afterAll(async () => {
    await topo?.stop();
    await receiver.stop();
    pg?.remove();
  });

  it('answers 503 with Retry-After while it is down, recovers by itself, and loses or doubles nothing', async () => {
    const op = new OperatorClient({ baseUrl: `${topo.apiUrl}/admin/v1`, adminToken: topo.adminToken, maxRetries: 0 });
    const ws = await op.workspaces.create({ name: 'Outage Corp', plan: 'business' });
    const alice = await op.users.create(ws.id, { name: 'Alice', login: 'alice', role: 'Engineer', isAdmin: true });
    const bob = await op.users.create(ws.id, { name: 'Bob', login: 'bob', role: 'Engineer', isAdmin: false });
    await op.webhooks.create(ws.id, { url: receiver.url, events: ['task.created'] });
    const { token } = await op.keys.issue(alice.id, { scopes: ['tasks:read', 'tasks:write', 'projects:write'] });
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const project = (await (await fetch(`${topo.apiUrl}/v1/projects`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Outage', key: 'OUT' }) })).json()) as { data: { id: string } };
    const projectId = project.data.id;

    // The load: WRITERS loops creating tasks assigned to Bob (one notification each), each request with a 10 s cap.
    const outcomes: Outcome[] = [];
    let running = true;
    let n = 0;
    const writer = async () => {
      while (running) {
        const at = Date.now();
        const title = `load ${++n}`;
        try {
          const r = await fetch(`${topo.apiUrl}/v1/tasks`, { method: 'POST', headers: auth, body: JSON.stringify({ projectId, title, assigneeIds: [bob.id] }), signal: AbortSignal.timeout(10_000) });
          const body = (await r.json().catch(() => ({}))) as { data?: { id: string; key: string }; error?: { code: string } };
          outcomes.push({ at, ms: Date.now() - at, status: r.status, retryAfter: r.headers.get('retry-after'), code: body.error?.code, key: body.data?.key, id: body.data?.id, title });
          if (r.status === 503) await new Promise((res) => setTimeout(res, 200));
        } catch (e) {
          outcomes.push({ at, ms: Date.now() - at, status: 0, retryAfter: null, code: (e as Error).name, title });
        }
      }
    };
    const writers = Array.from({ length: WRITERS }, writer);
    await new Promise((r) => setTimeout(r, 2000));

    const stoppedAt = Date.now();
    pg.stop();
    // While it is down: the api's and the mcp's /ready say not ready; an MCP call answers 503 with Retry-After.
    await new Promise((r) => setTimeout(r, 1000));
    const ready = await fetch(`${topo.apiReplicaUrls[0]}/ready`, { signal: AbortSignal.timeout(10_000) });
    const mcpReady = await fetch(`${topo.mcpUrl.replace(/\/mcp$/, '')}/ready`, { signal: AbortSignal.timeout(10_000) });
    const mcpStarted = Date.now();
    const mcpCall = await fetch(topo.mcpUrl, {
      method: 'POST',
      headers: { ...auth, accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
      signal: AbortSignal.timeout(10_000),
    });
    const mcpMs = Date.now() - mcpStarted;
    await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt))));
    pg.start();
    const startedAt = Date.now();
    // Until the first acknowledged write after the restart, then a little more load.
    for (let i = 0; i < 150 && !outcomes.some((o) => o.status === 201 && o.at >= startedAt); i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 2000));
    running = false;
    await Promise.all(writers);

    const firstOk = outcomes.filter((o) => o.status === 201 && o.at >= startedAt).sort((x, y) => x.at - y.at)[0];
    const byStatus: Record<string, number> = {};
    for (const o of outcomes) byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
    const during = outcomes.filter((o) => o.at >= stoppedAt && o.at < startedAt);
    const acknowledged = outcomes.filter((o) => o.status === 201);
    const unavailable = outcomes.filter((o) => o.status === 503);

    // Every process is ready again without a restart.
    for (const p of topo.processes()) {
      const r = await fetch(`${p.url}/ready`);
      expect(r.status, `${p.name} /ready`).toBe(200);
    }

    // Every acknowledged write is in the database, and every task there (acknowledged or committed just before its
    // answer was lost) has exactly one notification for Bob once the worker has caught up.
    const tasks: Array<{ id: string; key: string; title: string }> = [];
    for (let cursor: string | null = null; ;) {
      const r = await fetch(`${topo.apiUrl}/v1/tasks?projectId=${projectId}&limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers: auth });
      const page = (await r.json()) as { data: Array<{ id: string; key: string; title: string }>; nextCursor: string | null };
      tasks.push(...page.data);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    const stored = new Set(tasks.map((t) => t.id));
    const lost = acknowledged.filter((o) => !stored.has(o.id!));
    // No ghost writes: a task stored was answered 201, or 504 outcome_unknown (never 503).
    const maybe = new Set(outcomes.filter((o) => o.status === 201 || o.status === 504).map((o) => o.title));
    const ghosts = tasks.filter((t) => !maybe.has(t.title)).map((t) => `${t.key} ${t.title}: ${outcomes.filter((o) => o.title === t.title).map((o) => o.status).join(', ')}`);
    let perTask = new Map<string, number>();
    const deadline = Date.now() + 30_000;
    for (;;) {
      const inbox = await op.users.notifications(bob.id, { limit: 10_000 });
      perTask = new Map();
      for (const item of inbox) if (item.kind === 'assigned') perTask.set(item.taskId, (perTask.get(item.taskId) ?? 0) + 1);
      if ((tasks.every((t) => perTask.has(t.id)) && missingAndDoubled(receiver, tasks.map((t) => t.id))[0] === 0) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const missing = tasks.filter((t) => !perTask.has(t.id));
    const doubled = [...perTask.values()].filter((c) => c > 1).length;
    const [webhooksMissing, webhooksDoubled] = missingAndDoubled(receiver, tasks.map((t) => t.id));

    const logged = (name: string, text: string) => lines.filter((l) => l.name === name && l.line.includes(text)).length;
    const outageLogs = Object.fromEntries(topo.names.map((name) => [name, { down: logged(name, 'database unavailable'), up: logged(name, 'database available again') }]));
    const report = {
      requests: outcomes.length,
      byStatus,
      duringOutage: during.length,
      slowestDuringOutageMs: Math.max(0, ...during.map((o) => o.ms)),
      slowestMs: Math.max(...outcomes.map((o) => o.ms)),
      recoveryMs: firstOk ? firstOk.at + firstOk.ms - startedAt : null,
      acknowledged: acknowledged.length,
      storedTasks: tasks.length,
      committedDespite503: ghosts.length,
      outcomeUnknown: outcomes.filter((o) => o.status === 504).length,
      lost: lost.length,
      notificationsMissing: missing.length,
      notificationsDoubled: doubled,
      webhookRequests: receiver.requests.length,
      webhooksMissing,
      webhooksDoubled,
      apiReady: ready.status,
      mcpReady: mcpReady.status,
      mcpCall: { status: mcpCall.status, retryAfter: mcpCall.headers.get('retry-after'), ms: mcpMs },
      outageLogs,
    };
    console.log(`db outage: ${JSON.stringify(report)}`);

    expect(Object.keys(byStatus).filter((s) => s !== '504').sort()).toEqual(['201', '503']);
    expect(outcomes.filter((o) => o.status === 504).every((o) => o.code === 'outcome_unknown')).toBe(true);
    expect(ghosts).toEqual([]);
    expect(unavailable.every((o) => o.retryAfter !== null && Number(o.retryAfter) > 0 && o.code === 'service_unavailable')).toBe(true);
    expect(during.length).toBeGreaterThan(0);
    expect(report.slowestDuringOutageMs).toBeLessThan(6000);
    expect(firstOk).toBeDefined();
    expect(report.recoveryMs!).toBeLessThan(10_000);
    expect(lost).toEqual([]);
    expect(missing).toEqual([]);
    expect(doubled).toBe(0);
    expect([webhooksMissing, webhooksDoubled]).toEqual([0, 0]);
    expect(ready.status).toBe(503);
    expect(mcpReady.status).toBe(503);
    expect(mcpCall.status).toBe(503);
    expect(Number(mcpCall.headers.get('retry-after'))).toBeGreaterThan(0);
    // Each process logs the outage once and its end once (not once per request: about 90 requests were refused
    // meanwhile), whatever its pool went through; the lines themselves are in the message when it fails.
    for (const name of topo.names) {
      const said = lines.filter((l) => l.name === name && /database (unavailable|available again)/.test(l.line)).map((l) => l.line);
      expect(outageLogs[name], `${name}: ${said.join('\n')}`).toEqual({ down: 1, up: 1 });
    }
  });
});
