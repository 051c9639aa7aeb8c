import { keys, people, type Scope, SCOPES } from '@tt/domain';
import { createLogger, createRuntime, type Runtime } from '@tt/http';
import { createTestDatabase } from '../../../../packages/store/src/testing.js';
import { ConfigSchema } from '../config.js';
import { startApi, type ApiServer } from '../server.js';

export interface Harness {
  api: ApiServer;
  runtime: Runtime;
  base: string;
  /** Calls the REST API with a key. */
  call(token: string | null, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  /** Calls the operator API. */
  op(method: string, path: string, body?: unknown): Promise<TestResponse>;
  workspace(opts?: { plan?: 'free' | 'team' | 'business' }): Promise<TestWorkspace>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface TestWorkspace {
  id: string;
  adminUser: { id: string; login: string };
  /** A key of the workspace admin with every right. */
  token: string;
  keyId: string;
  user(opts?: { isAdmin?: boolean; login?: string; name?: string }): Promise<{ id: string; login: string }>;
  key(userId: string, opts?: { scopes?: Scope[]; projectIds?: string[] | null; allowedIps?: string[]; expiresAt?: number | null }): Promise<{ id: string; token: string }>;
}

let counter = 0;

export interface HarnessOptions {
  /** The URL the API connects to, given the fresh database's (PostgreSQL only): a fault proxy in front of it, say. */
  databaseUrl?: (url: string) => string;
}

/** Starts the API on a fresh database (PGlite in memory, or a PostgreSQL clone with TEST_DATABASE_URL). */
export async function startHarness(env: Record<string, string> = {}, o: HarnessOptions = {}): Promise<Harness> {
  const { databaseUrl: own, pglite, drop } = await createTestDatabase();
  const databaseUrl = own && o.databaseUrl ? o.databaseUrl(own) : own;
  // A high limit by default so suites that send many requests are not throttled; the rate-limit tests set their own.
  // No drain on close (SHUTDOWN_DRAIN_MS defaults to 5 s, for a load balancer to notice; every file closes a harness,
  // and nothing here is behind one): lifecycle.int.test.ts tests the drain on the api process, with its own value.
  const config = ConfigSchema.parse({
    PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ADMIN_TOKEN: 'test-operator-token-123456', RATE_LIMIT_PER_MINUTE: '100000', SHUTDOWN_DRAIN_MS: '0', ...env,
  });
  const runtime = await createRuntime({
    databaseUrl, pglite, redisUrl: config.REDIS_URL, rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE, logger: createLogger('silent', 'test'),
  });
  const api = await startApi(config, runtime);
  const base = api.url;

  async function request(auth: string | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const h: Record<string, string> = { ...headers };
    if (auth !== null) h.authorization = `Bearer ${auth}`;
    let payload: string | undefined;
    if (body !== undefined) {
      h['content-type'] = 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(base + path, { method, headers: h, body: payload });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed as any, text };
  }

  const harness: Harness = {
    api,
    runtime,
    base,
    call: (token, method, path, body, headers) => request(token, method, `/v1${path}`, body, headers),
    op: (method, path, body) => request('test-operator-token-123456', method, `/admin/v1${path}`, body),
    async workspace(opts = {}) {
      const deps = runtime.deps;
      const n = ++counter;
      const ws = await people.createWorkspace({ name: `Workspace ${n}`, plan: opts.plan ?? 'business', timezone: 'Europe/Moscow' }, deps);
      const mkUser = async (o: { isAdmin?: boolean; login?: string; name?: string } = {}) => {
        const login = o.login ?? `user${++counter}`;
        const u = await people.createUser(ws.id, { name: o.name ?? `User ${login}`, login, role: 'Engineer', isAdmin: o.isAdmin ?? false }, deps);
        return { id: u.id, login: u.login };
      };
      const mkKey: TestWorkspace['key'] = async (userId, o = {}) => {
        const k = await keys.issueKey(
          userId,
          { scopes: o.scopes ?? [...SCOPES], projectIds: o.projectIds ?? null, allowedIps: o.allowedIps ?? [], expiresAt: o.expiresAt ?? null },
          deps,
        );
        return { id: k.id, token: k.token };
      };
      const adminUser = await mkUser({ isAdmin: true, login: `admin${n}` });
      const key = await mkKey(adminUser.id);
      return { id: ws.id, adminUser, token: key.token, keyId: key.id, user: mkUser, key: mkKey };
    },
    async close() {
      await api.stop();
      await runtime.close();
      await drop();
    },
  };
  return harness;
}
