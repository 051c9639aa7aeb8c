import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../../../scripts/topology/fault-proxy.mjs';
import { guardStatements } from '../../../packages/store/src/testing.js';
import { type Harness, startHarness, type TestWorkspace } from './test/harness.js';

/*
 * The brownout test: no ghost writes. The API runs on PostgreSQL behind a TCP proxy that, in bursts, delays every reply
 * of the database past the request deadline (a statement reaches the server at once and may commit; its answer comes
 * late), while clients create tasks (with and without a parent, with and without an Idempotency-Key), change tasks
 * (PATCH, a transaction), change two tasks in one bulk call (atomic or not, one transaction either way) and comment. A
 * write answered 503 must not be stored; what is stored was answered 2xx; a retry with the same Idempotency-Key replays
 * a 2xx and runs a 503 again (nothing was kept of it).
 */
const PG = process.env.TEST_DATABASE_URL;
const DEADLINE_MS = 1500;
/** A slow database: every statement's answer 100 ms late; a request's writes start well inside its deadline. */
const SLOW_MS = 100;
/**
 * Then later: a write sent as the answers turn this late has its answer after its request's deadline, and a request
 * begun now has its key checked (one round trip) with less than a round trip left for its write.
 */
const LATE_MS = 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ok = (a: { status: number }) => a.status >= 200 && a.status < 300;

interface Attempt {
  kind: 'create' | 'create-key' | 'create-parent' | 'patch' | 'comment' | 'bulk';
  /** The title or the comment's text the request writes: unique per attempt. */
  label: string;
  status: number;
  code?: string;
  idemKey?: string;
  /** The task a PATCH changes or a comment is on. */
  taskKey?: string;
  body?: any;
  /** How long the answer took, ms. */
  ms: number;
}

describe.skipIf(!PG)('brownout: a write answered 503 is never stored', () => {
  let h: Harness;
  let ws: TestWorkspace;
  let proxy: FaultProxy;
  let direct: Knex;
  let boardId: string;
  let projectId: string;

  beforeAll(async () => {
    const target = new URL(PG!);
    proxy = await startFaultProxy({ port: Number(target.port || 5432), host: target.hostname });
    let real = '';
    // The apps read it from the environment (their config checks it).
    const before = process.env.REQUEST_DEADLINE_MS;
    process.env.REQUEST_DEADLINE_MS = String(DEADLINE_MS);
    restore = () => (before === undefined ? delete process.env.REQUEST_DEADLINE_MS : (process.env.REQUEST_DEADLINE_MS = before));
    h = await startHarness({ REQUEST_DEADLINE_MS: String(DEADLINE_MS) }, {
      databaseUrl: (url) => {
        real = url;
        const u = new URL(url);
        u.hostname = '127.0.0.1';
        u.port = String(proxy.port);
        return u.toString();
      },
    });
    direct = knexFactory({ client: 'pg', connection: real, pool: { min: 0, max: 2 } });
    ws = await h.workspace();
    const project = (await h.call(ws.token, 'POST', '/projects', { name: 'Brownout', key: 'BRN' })).body.data;
    projectId = project.id;
    boardId = project.boards[0].id;
  }, 60_000);
  let restore = () => undefined as unknown;
  afterAll(async () => {
    restore();
    await direct?.destroy();
    await h?.close();
    await proxy?.close();
  });

  it('stores what was answered 2xx and nothing answered 503, and Idempotency-Key retries agree', async () => {
    // A request whose connection the server closed without an answer counts as status 0 (the test then fails on it).
    const call = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
      h.call(ws.token, method, path, body, headers).catch((e: Error) => ({ status: 0, headers: new Headers(), body: { error: { code: String(e.cause ?? e) } }, text: '' }));
    const post = (path: string, body: unknown, idemKey?: string) => call('POST', path, body, idemKey ? { 'idempotency-key': idemKey } : {});
    const parent = (await post('/tasks', { boardId, title: 'parent' })).body.data;
    const WORKERS = 6;
    const patched: string[] = [];
    const commented: string[] = [];
    const bulked: string[][] = [];
    for (let w = 0; w < WORKERS; w++) {
      bulked.push([(await post('/tasks', { boardId, title: `bulk-${w}-a` })).body.data.key, (await post('/tasks', { boardId, title: `bulk-${w}-b` })).body.data.key]);
      patched.push((await post('/tasks', { boardId, title: `patched-${w}-start` })).body.data.key);
      commented.push((await post('/tasks', { boardId, title: `commented-${w}` })).body.data.key);
    }
    const kinds: Attempt['kind'][] = ['create', 'create-key', 'create-parent', 'patch', 'comment', 'bulk'];
    /** A bulk call's body: both of the worker's tasks get a title made of the label; atomic every other time. */
    const bulkBody = (w: number, label: string, atomic: boolean) => ({ atomic, items: [{ task: bulked[w]![0], title: `${label}-a` }, { task: bulked[w]![1], title: `${label}-b` }] });
    const bulkAtomic = new Map<string, boolean>();
    const attempts: Attempt[] = [];
    let n = 0;
    let running = true;

    async function worker(w: number): Promise<void> {
      for (let i = 0; running; i++) {
        const kind = kinds[(w + i) % kinds.length]!;
        const label = `${kind}-${w}-${++n}`;
        const idemKey = kind === 'create' || kind === 'patch' || (kind === 'bulk' && i % 4 < 2) ? undefined : `idem-${label}`;
        let r;
        let taskKey: string | undefined;
        const started = Date.now();
        if (kind === 'patch') {
          taskKey = patched[w]!;
          r = await call('PATCH', `/tasks/${taskKey}`, { title: label });
        } else if (kind === 'bulk') {
          bulkAtomic.set(label, i % 2 === 0);
          r = await post('/tasks/bulk', bulkBody(w, label, i % 2 === 0), idemKey);
        } else if (kind === 'comment') {
          taskKey = commented[w]!;
          r = await post(`/tasks/${taskKey}/comments`, { text: label }, idemKey);
        } else {
          r = await post('/tasks', { boardId, title: label, ...(kind === 'create-parent' ? { parentId: parent.id } : {}) }, idemKey);
        }
        attempts.push({ kind, label, status: r.status, code: r.body?.error?.code, idemKey, taskKey, body: r.body, ms: Date.now() - started });
        await sleep(Math.random() * 40);
      }
    }

    // Every statement the requests send goes through the deadline's rule (none bypasses it).
    const guard = guardStatements();
    const load = Array.from({ length: WORKERS }, (_, w) => worker(w));
    // Slow, then late, five times: requests in flight as the answers turn late had their first statements answered in
    // 100 ms, so they send their write (an insert, a COMMIT) with time to spare; its answer comes after their deadline.
    for (let turn = 0; turn < 5; turn++) {
      proxy.set({ delayMs: SLOW_MS, replies: true });
      await sleep(600 + Math.random() * 300);
      proxy.set({ delayMs: LATE_MS, replies: true });
      await sleep(2000);
    }
    proxy.set('pass');
    await sleep(300);
    running = false;
    await Promise.all(load);
    guard.stop();
    expect(guard.seen()).toBeGreaterThan(0);
    expect(guard.bypassed).toEqual([]);
    // Whatever is still on its way lands before the database is read.
    await sleep(LATE_MS + 500);

    const statuses = new Map<number, number>();
    for (const a of attempts) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
    const summary = Object.fromEntries([...statuses].sort(([a], [b]) => a - b));
    const unavailable = attempts.filter((a) => a.status === 503);
    // Writes answered 2xx after their deadline: their answer came late, and was waited for.
    const late = attempts.filter((a) => ok(a) && a.ms > DEADLINE_MS).map((a) => `${a.kind} ${a.ms} ms`);
    if (process.env.BROWNOUT_DEBUG) console.log(summary, late);
    // The bursts did their job: some writes were answered 503 and some 2xx (else the test proves nothing).
    expect(unavailable.length, JSON.stringify(summary)).toBeGreaterThan(0);
    expect(attempts.filter(ok).length).toBeGreaterThan(0);
    // Every answer is 2xx or 503 service_unavailable: never a 500. (Status 0: no answer, the connection closed.)
    for (const a of attempts) {
      if (!ok(a) && a.status !== 0) expect({ status: a.status, code: a.code }, `${a.kind} ${a.label}: ${JSON.stringify(a.body)}`).toEqual({ status: 503, code: 'service_unavailable' });
    }

    const titles = new Set((await direct('tasks').where({ project_id: projectId }).select('title')).map((r: { title: string }) => r.title));
    const texts = new Set((await direct('comments').select('text')).map((r: { text: string }) => r.text));
    const stored = (a: Attempt) => (a.kind === 'comment' ? texts.has(a.label) : titles.has(a.label));

    // Nothing answered 503 is stored (a PATCH's title would be the task's title now, or be overwritten by a later one).
    const ghosts = unavailable.filter((a) => a.kind !== 'patch' && stored(a)).map((a) => `${a.label} (${a.kind})`);
    // What is stored was answered 2xx.
    const answered = new Set(attempts.filter(ok).map((a) => a.label));
    for (const title of titles) {
      if (!/^(create|create-key|create-parent)-/.test(title)) continue;
      if (!answered.has(title)) ghosts.push(`${title} (stored, never answered 2xx)`);
    }
    for (const text of texts) if (text.startsWith('comment-') && !answered.has(text)) ghosts.push(`${text} (stored, never answered 2xx)`);
    // Each changed task holds the title of its last PATCH answered 2xx (its start title if none was).
    for (let w = 0; w < WORKERS; w++) {
      const mine = attempts.filter((a) => a.kind === 'patch' && a.taskKey === patched[w]);
      const last = [...mine].reverse().find(ok)?.label ?? `patched-${w}-start`;
      const now = (await direct('tasks').where({ project_id: projectId, key: patched[w] }).first('title')).title as string;
      if (now !== last) ghosts.push(`${now} (PATCH title stored; the last 2xx was ${last})`);
    }
    expect(ghosts, `answers ${JSON.stringify(summary)}; 2xx after the deadline: ${late.join(', ')}`).toEqual([]);

    // A bulk call answered 503 left no trace of either item (their activity entries name the titles it wrote); one
    // answered 2xx left both.
    const bulkTitles = new Set<string>();
    for (const row of await direct('activity').whereIn('task_key', bulked.flat()).select('changes')) {
      for (const c of (typeof row.changes === 'string' ? JSON.parse(row.changes) : row.changes) as Array<{ field: string; to: unknown }>) {
        if (c.field === 'title') bulkTitles.add(String(c.to));
      }
    }
    const bulks = attempts.filter((a) => a.kind === 'bulk');
    expect(bulks.length).toBeGreaterThan(0);
    for (const a of bulks) {
      const kept = [`${a.label}-a`, `${a.label}-b`].filter((t) => bulkTitles.has(t));
      if (a.status === 503) expect(kept, `${a.label}: answered 503, yet stored`).toEqual([]);
      if (ok(a)) expect(kept, `${a.label}: answered ${a.status}`).toHaveLength(2);
    }
    for (const title of bulkTitles) {
      const label = title.replace(/-[ab]$/, '');
      if (/^bulk-\d+-\d+-[ab]$/.test(title) && !answered.has(label)) ghosts.push(`${title} (bulk item stored, never answered 2xx)`);
    }
    expect(ghosts).toEqual([]);

    // Idempotency-Key: a retry replays a 2xx with the same task or comment; a 503 left nothing, so its retry runs.
    for (const a of attempts.filter((x) => x.idemKey)) {
      if (a.kind === 'bulk') {
        const again = await post('/tasks/bulk', bulkBody(Number(a.label.split('-')[1]), a.label, bulkAtomic.get(a.label)!), a.idemKey);
        expect(again.status, a.label).toBe(200);
        if (ok(a)) expect(again.body, a.label).toEqual(a.body);
        expect(again.headers.get('idempotent-replayed'), a.label).toBe(ok(a) ? 'true' : null);
        continue;
      }
      const path = a.kind === 'comment' ? `/tasks/${a.taskKey}/comments` : '/tasks';
      const body = a.kind === 'comment' ? { text: a.label } : { boardId, title: a.label, ...(a.kind === 'create-parent' ? { parentId: parent.id } : {}) };
      const again = await post(path, body, a.idemKey);
      if (process.env.BROWNOUT_DEBUG && ok(a) !== (again.headers.get('idempotent-replayed') === 'true')) {
        console.log(a, again.status, again.body, await direct('idempotency_keys').where({ idem_key: a.idemKey }));
      }
      expect(again.status, a.label).toBe(201);
      if (ok(a)) {
        expect(again.headers.get('idempotent-replayed'), a.label).toBe('true');
        expect(again.body.data.id).toBe(a.body.data.id);
      } else if (a.status === 503) {
        expect(again.headers.get('idempotent-replayed'), `${a.label}: answered 503, yet its key replays`).toBeNull();
      }
    }
    const after = await direct('tasks').where({ project_id: projectId }).whereIn('title', attempts.filter((a) => a.idemKey && a.kind !== 'comment').map((a) => a.label)).select('title');
    expect(after.length).toBe(new Set(after.map((r: { title: string }) => r.title)).size);
  }, 120_000);
});
