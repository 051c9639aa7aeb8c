import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabaseUrl, dropTestDatabase } from '../../../packages/store/src/testing.js';

/*
 * The API as a real process (its production entry, apps/api/src/main.ts, under tsx): graceful shutdown on
 * SIGTERM, and the rate limit shared through Redis by two processes.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const ADMIN = 'lifecycle-operator-token-1234';

interface ApiProcess {
  child: ChildProcess;
  base: string;
  port: number;
  /** Resolves with the first log line that matches. */
  logLine(pred: (l: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  exit: Promise<number | null>;
}

const started: ApiProcess[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const p of started) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const c of cleanups) await c();
});

async function spawnApi(env: Record<string, string>): Promise<ApiProcess> {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env, PORT: '0', HOST: '127.0.0.1', ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '100000', SHUTDOWN_DRAIN_MS: '0', ...env,
  };
  for (const k of ['DATABASE_URL', 'REDIS_URL'] as const) if (!(k in env)) delete childEnv[k];
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps/api/src/main.ts')], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const seen: Array<Record<string, unknown>> = [];
  const waiters: Array<{ pred: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }> = [];
  let buffer = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => void (stderr += d.toString()));
  child.stdout!.on('data', (d: Buffer) => {
    buffer += d.toString();
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const text = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        continue;
      }
      seen.push(line);
      for (const w of waiters.filter((x) => x.pred(line))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  const exit = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  const logLine = (pred: (l: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((res, rej) => {
      const found = seen.find(pred);
      if (found) return res(found);
      waiters.push({ pred, resolve: res });
      void exit.then((code) => rej(new Error(`api exited with ${code} before the expected log line; stderr: ${stderr}`)));
    });
  const listening = await logLine((l) => l.msg === 'api listening');
  const base = String(listening.url).replace(/\/v1$/, '');
  const p: ApiProcess = { child, base, port: Number(new URL(base).port), logLine, exit };
  started.push(p);
  return p;
}

async function json(base: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

/** A workspace with an all-rights key and one task, made through the operator API and REST. */
async function fixture(base: string) {
  const ws = (await json(base, ADMIN, 'POST', '/admin/v1/workspaces', { name: 'Lifecycle' })).body.data;
  const user = (await json(base, ADMIN, 'POST', `/admin/v1/workspaces/${ws.id}/users`, { name: 'Lee', login: 'lee', isAdmin: true })).body.data;
  const scopes = ['tasks:read', 'tasks:write', 'projects:write'];
  const token = (await json(base, ADMIN, 'POST', `/admin/v1/users/${user.id}/keys`, { scopes })).body.data.token as string;
  const project = (await json(base, token, 'POST', '/v1/projects', { name: 'Life', key: 'LIFE' })).body.data;
  const task = (await json(base, token, 'POST', '/v1/tasks', { title: 'Before', projectId: project.id })).body.data;
  return { token, task };
}

/** Whether a fresh TCP connection to the port is refused. */
const refused = (port: number) =>
  new Promise<boolean>((res) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      res(false);
    });
    s.once('error', (e: NodeJS.ErrnoException) => res(e.code === 'ECONNREFUSED'));
  });

async function databaseEnv(): Promise<Record<string, string>> {
  const url = await createTestDatabaseUrl();
  if (url) {
    cleanups.push(() => dropTestDatabase(url));
    return { DATABASE_URL: url };
  }
  const dir = mkdtempSync(join(tmpdir(), 'tt-lifecycle-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return { DATA_DIR: dir };
}

describe('graceful shutdown', () => {
  it('on SIGTERM reports draining at once, serves every request of a steady load through the drain delay, then exits 0', async () => {
    const DRAIN = 2000;
    const api = await spawnApi({ ...(await databaseEnv()), SHUTDOWN_DRAIN_MS: String(DRAIN) });
    const { token, task } = await fixture(api.base);
    // Keep-alive connections, as a proxy or an SDK holds them.
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const get = (path: string, auth?: string) =>
      new Promise<{ status: number; connection?: string | undefined; error?: string; sent: number; at: number; body?: string }>((res) => {
        const sent = Date.now();
        const r = request(`${api.base}${path}`, { agent, headers: auth ? { authorization: `Bearer ${auth}` } : {} }, (resp) => {
          let text = '';
          resp.on('data', (d: Buffer) => void (text += d.toString()));
          resp.on('end', () => res({ status: resp.statusCode ?? 0, connection: resp.headers.connection, sent, at: Date.now(), body: text }));
        });
        r.on('error', (e: NodeJS.ErrnoException) => res({ status: 0, error: e.code ?? e.message, sent, at: Date.now() }));
        r.end();
      });

    let sigtermAt = 0;
    // The client stops a little before the drain delay ends, when a real balancer has long taken the process out.
    const loading = () => !sigtermAt || Date.now() < sigtermAt + DRAIN - 300;
    const results: Array<Awaited<ReturnType<typeof get>>> = [];
    const client = async () => {
      while (loading()) results.push(await get(`/v1/tasks/${task.key}`, token));
    };
    const load = Promise.all([client(), client(), client(), client()]);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await get('/ready')).status).toBe(200);

    sigtermAt = Date.now();
    api.child.kill('SIGTERM');
    let ready = await get('/ready');
    while (ready.status === 200 && Date.now() - sigtermAt < 2000) ready = await get('/ready');
    const flippedAfterMs = ready.at - sigtermAt;
    await load;
    const exit = await api.exit;
    const exitedAfterMs = Date.now() - sigtermAt;

    const during = results.filter((r) => r.at > sigtermAt);
    const failed = results.filter((r) => r.status !== 200);
    // Requests sent once /ready said draining (those already in flight then may still keep their connection).
    const afterFlip = during.filter((r) => r.sent > ready.at);
    const closing = afterFlip.filter((r) => r.connection === 'close').length;
    console.log(JSON.stringify({ requests: results.length, duringDrain: during.length, failed: failed.length, flippedAfterMs, closing, exitedAfterMs, exit }));

    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body!)).toMatchObject({ status: 'draining', checks: { database: true } });
    expect(flippedAfterMs).toBeLessThan(500);
    expect(during.length).toBeGreaterThan(20);
    expect(failed).toEqual([]);
    // Responses during the drain ask keep-alive clients to reconnect (elsewhere).
    expect(closing).toBe(afterFlip.length);
    expect(exit).toBe(0);
    expect(exitedAfterMs).toBeGreaterThanOrEqual(DRAIN);
    expect(exitedAfterMs).toBeLessThan(DRAIN + 5000);
    agent.destroy();
  }, 60_000);

  it('on SIGTERM refuses new connections, finishes the request in flight with 200 and exits 0', async () => {
    const api = await spawnApi(await databaseEnv());
    const { token, task } = await fixture(api.base);

    // A PATCH whose body is still on its way: the server has the request (it sent 100 Continue) but cannot answer yet.
    const body = JSON.stringify({ title: 'Finished during shutdown' });
    const half = Math.floor(body.length / 2);
    const req = request(`${api.base}/v1/tasks/${task.key}`, {
      method: 'PATCH', agent: false,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), expect: '100-continue' },
    });
    let answered = false;
    const response = new Promise<{ status: number; body: any }>((res, rej) => {
      req.once('response', (r) => {
        answered = true;
        let text = '';
        r.on('data', (d: Buffer) => void (text += d.toString()));
        r.on('end', () => res({ status: r.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.once('error', rej);
    });
    await new Promise<void>((res) => req.once('continue', () => res()));
    req.write(body.slice(0, half));

    api.child.kill('SIGTERM');
    await api.logLine((l) => l.msg === 'shutting down');
    // The listener closes right after that line is written; allow the child a moment to get there.
    let isRefused = false;
    for (let i = 0; i < 100 && !isRefused; i++) {
      isRefused = await refused(api.port);
      if (!isRefused) await new Promise((r) => setTimeout(r, 20));
    }
    expect(isRefused).toBe(true);
    expect(answered).toBe(false);
    expect(api.child.exitCode).toBe(null);

    req.end(body.slice(half));
    const done = await response;
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ key: task.key, title: 'Finished during shutdown' });
    expect(await api.exit).toBe(0);
    await api.logLine((l) => l.msg === 'stopped');
  }, 120_000);
});

describe.runIf(process.env.TEST_REDIS_URL && process.env.TEST_DATABASE_URL)('rate limit across processes', () => {
  it('two API processes on one Redis draw on one budget per key', async () => {
    const db = await databaseEnv();
    const env = { ...db, REDIS_URL: process.env.TEST_REDIS_URL!, RATE_LIMIT_PER_MINUTE: '5' };
    const a = await spawnApi(env);
    const b = await spawnApi(env);
    const { token } = await fixture(a.base);
    // The fixture used the key twice in process A (POST /projects, POST /tasks): B sees those two gone.
    const first = await json(b.base, token, 'GET', '/v1/me');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('5');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    expect((await json(a.base, token, 'GET', '/v1/me')).headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await json(b.base, token, 'GET', '/v1/me')).headers.get('x-ratelimit-remaining')).toBe('0');
    const limitedA = await json(a.base, token, 'GET', '/v1/me');
    const limitedB = await json(b.base, token, 'GET', '/v1/me');
    for (const r of [limitedA, limitedB]) {
      expect(r.status).toBe(429);
      expect(r.body.error.code).toBe('rate_limited');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    expect(await a.exit).toBe(0);
    expect(await b.exit).toBe(0);
  }, 120_000);
});
