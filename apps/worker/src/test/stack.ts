import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { keys, people, SCOPES } from '@tt/domain';
import { createLogger, createRuntime, type Runtime } from '@tt/http';
import { QUEUE_NAME } from '@tt/jobs';
import { createTestDatabase } from '../../../../packages/store/src/testing.js';
import { ConfigSchema } from '../../../api/src/config.js';
import { startApi, type ApiServer } from '../../../api/src/server.js';

const ADMIN_TOKEN = 'worker-test-operator-token';

export interface Res {
  status: number;
  body: any;
}

/** The REST API (and its outbox relay) on a fresh database and a queue of its own. */
export interface Stack {
  runtime: Runtime;
  api: ApiServer;
  databaseUrl: string | undefined;
  prefix: string;
  call(token: string, method: string, path: string, body?: unknown): Promise<Res>;
  op(method: string, path: string, body?: unknown): Promise<Res>;
  close(): Promise<void>;
}

/** The REST API on a runtime, with JSON callers for keys (`call`, under /v1) and the operator (`op`). */
export async function apiOn(runtime: Runtime): Promise<Pick<Stack, 'api' | 'call' | 'op'>> {
  // No drain on close (SHUTDOWN_DRAIN_MS's 5 s default is for a load balancer; apps/api's lifecycle test covers it).
  const config = ConfigSchema.parse({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ADMIN_TOKEN, RATE_LIMIT_PER_MINUTE: '100000', SHUTDOWN_DRAIN_MS: '0' });
  const api = await startApi(config, runtime);
  const request = async (auth: string, method: string, path: string, body?: unknown): Promise<Res> => {
    const res = await fetch(api.url + path, {
      method,
      headers: { authorization: `Bearer ${auth}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  return {
    api,
    call: (token, method, path, body) => request(token, method, `/v1${path}`, body),
    op: (method, path, body) => request(ADMIN_TOKEN, method, `/admin/v1${path}`, body),
  };
}

export const uniquePrefix = (): string => `tt-test-${randomBytes(4).toString('hex')}`;

export async function startStack(o: { redisUrl: string; prefix?: string; consume: boolean }): Promise<Stack> {
  const { databaseUrl, pglite, drop } = await createTestDatabase();
  const prefix = o.prefix ?? uniquePrefix();
  const runtime = await createRuntime({
    databaseUrl, pglite, redisUrl: o.redisUrl, rateLimitPerMinute: 100_000, logger: createLogger('silent', 'test'), consumeJobs: o.consume,
    queuePrefix: prefix, jobConcurrency: 4,
  });
  const { api, call, op } = await apiOn(runtime);
  return {
    runtime, api, databaseUrl, prefix, call, op,
    async close() {
      await api.stop();
      await runtime.close();
      await drop();
    },
  };
}

/** Removes a test's queue from Redis (`jobs`, or another lane's name such as `webhooks`). */
export async function dropQueue(redisUrl: string, prefix: string, name = QUEUE_NAME): Promise<void> {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const q = new Queue(name, { connection, prefix });
  try {
    await q.obliterate({ force: true });
  } finally {
    await q.close();
    connection.disconnect();
  }
}

export interface Person {
  id: string;
  login: string;
  token: string;
}

/** A workspace with four people holding full keys, and a project with one board. */
export async function team(stack: Stack): Promise<{ workspaceId: string; boardId: string; alice: Person; bob: Person; carol: Person; dave: Person }> {
  const deps = stack.runtime.deps;
  const ws = await people.createWorkspace({ name: 'Jobs', plan: 'business', timezone: 'Europe/Moscow' }, deps);
  const person = async (login: string): Promise<Person> => {
    const u = await people.createUser(ws.id, { name: login, login, role: '', isAdmin: login === 'alice' }, deps);
    const k = await keys.issueKey(u.id, { scopes: [...SCOPES], projectIds: null, allowedIps: [], expiresAt: null }, deps);
    return { id: u.id, login: u.login, token: k.token };
  };
  const alice = await person('alice');
  const [bob, carol, dave] = await Promise.all([person('bob'), person('carol'), person('dave')]);
  const project = await stack.call(alice.token, 'POST', '/projects', { name: 'Jobs', key: 'JOB' });
  return { workspaceId: ws.id, boardId: project.body.data.boards[0].id, alice, bob, carol, dave };
}

/** Every notification of a workspace as "login kind event", sorted; duplicates would show twice. */
export async function delivered(stack: Stack, workspaceId: string): Promise<string[]> {
  const rows = await stack.runtime.db('notifications')
    .join('users', 'users.id', 'notifications.user_id')
    .where('notifications.workspace_id', workspaceId)
    .select('users.login', 'notifications.kind', 'notifications.event_key');
  // An assignment's key ends in its job id, which the test cannot know; two deliveries would still show as two lines.
  return rows.map((r: any) => `${r.login} ${r.kind} ${String(r.event_key).replace(/:outbox-\d+$/, '')}`).sort();
}
