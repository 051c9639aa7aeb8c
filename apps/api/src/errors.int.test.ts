import type { Server } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys, people, SCOPES } from '@tt/domain';
import { createRuntime, type Runtime } from '@tt/http';
import { createTestDatabaseUrl, dropTestDatabase } from '../../../packages/store/src/testing.js';
import { createApiApp } from './app.js';

/*
 * Unexpected faults: a 500 `internal` that names the request id, the same id in the x-request-id header and
 * in the error line of the pino log, and nothing of the fault itself in the answer. The faults are real ones
 * of the database under the running app (a table gone, the connection pool closed), not a route made for tests.
 */

interface LogLine { level: number; msg: string; req?: { id?: string; url?: string }; err?: { message?: string; stack?: string }; res?: { statusCode?: number } }

const lines: LogLine[] = [];
const logger = pino({ level: 'info', base: { name: 'api' } }, { write: (s: string) => void lines.push(JSON.parse(s) as LogLine) });

let url: string | undefined;
let runtime: Runtime;
let server: Server;
let base: string;
let token: string;

beforeAll(async () => {
  url = await createTestDatabaseUrl();
  runtime = await createRuntime({ databaseUrl: url, rateLimitPerMinute: 10_000, logger: pino({ level: 'silent' }) });
  const ws = await people.createWorkspace({ name: 'Errors', plan: 'business', timezone: 'Europe/Moscow' }, runtime.deps);
  const user = await people.createUser(ws.id, { name: 'Ann', login: 'ann', role: '', isAdmin: true }, runtime.deps);
  token = (await keys.issueKey(user.id, { scopes: [...SCOPES], projectIds: null, allowedIps: [], expiresAt: null }, runtime.deps)).token;
  const { app } = createApiApp({
    deps: runtime.deps, logger, limiter: runtime.limiter, adminToken: 'errors-test-operator-token', trustProxy: false, ready: () => runtime.ready(),
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const addr = server.address();
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await runtime?.close().catch(() => undefined);
  await dropTestDatabase(url);
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(base + path, { headers: { authorization: `Bearer ${token}`, ...headers } });

/** The log lines at error level (50) that carry this request id. */
const errorLines = (id: string) => lines.filter((l) => l.level >= 50 && l.req?.id === id);

describe('unexpected faults', () => {
  it('answer 500 internal with the request id that the error log line also carries', async () => {
    expect((await get('/v1/tasks')).status).toBe(200);
    // The schema changes under the running app: the next query of tasks fails in the database driver.
    await runtime.db.raw('alter table tasks rename to tasks_moved_away');
    try {
      const res = await get('/v1/tasks');
      expect(res.status).toBe(500);
      const id = res.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('internal');
      expect(body.error.message).toContain(id!);
      // The cause stays in the log, never in the answer.
      expect(body.error.message).not.toMatch(/tasks|relation|select|sql/i);
      const logged = errorLines(id!);
      expect(logged.length).toBeGreaterThan(0);
      expect(logged.some((l) => /tasks/.test(`${l.err?.message ?? ''}${l.err?.stack ?? ''}`))).toBe(true);
      expect(logged.every((l) => l.req?.url === '/v1/tasks')).toBe(true);
    } finally {
      await runtime.db.raw('alter table tasks_moved_away rename to tasks');
    }
    expect((await get('/v1/tasks')).status).toBe(200);
  });

  it('keep a sane request id sent by the client, in the answer and in the log', async () => {
    await runtime.db.raw('alter table tasks rename to tasks_moved_away');
    try {
      const res = await get('/v1/tasks', { 'x-request-id': 'trace-4711.a' });
      expect(res.status).toBe(500);
      expect(res.headers.get('x-request-id')).toBe('trace-4711.a');
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain('trace-4711.a');
      expect(errorLines('trace-4711.a').length).toBeGreaterThan(0);
      // An id outside the safe alphabet (it could forge log fields) is replaced by a fresh one.
      const forged = await get('/v1/tasks', { 'x-request-id': 'id with "quotes" and spaces' });
      expect(forged.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await runtime.db.raw('alter table tasks_moved_away rename to tasks');
    }
  });

  it('a closed database gives 500 internal on requests and 503 on /ready, and the process keeps serving', async () => {
    await runtime.db.destroy();
    const res = await get('/v1/me');
    expect(res.status).toBe(500);
    const id = res.headers.get('x-request-id')!;
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('internal');
    expect(errorLines(id).length).toBeGreaterThan(0);
    const ready = await fetch(`${base}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not_ready', checks: { database: false } });
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });
});
