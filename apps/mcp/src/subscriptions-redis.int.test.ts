import { randomBytes } from 'node:crypto';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { comments, keys, people, projects, type Scope, SCOPES, tasks } from '@tt/domain';
import { createLogger, createRuntime, type Runtime } from '@tt/http';
import { createTestDatabaseUrl, dropTestDatabase } from '../../../packages/store/src/testing.js';
import { type McpServerHandle, startMcp } from './index.js';

// Across processes the change feed is Redis pub/sub: two runtimes on one PostgreSQL and one Redis stand for an api
// replica (or the worker) and an mcp replica. Needs TEST_DATABASE_URL and TEST_REDIS_URL (CI sets both).
const redisUrl = process.env.TEST_REDIS_URL;
const run = redisUrl && process.env.TEST_DATABASE_URL ? describe : describe.skip;

run('subscriptions across processes (Redis)', () => {
  let databaseUrl: string | undefined;
  let mcpSide: Runtime;
  let apiSide: Runtime;
  let mcp: McpServerHandle;
  let token: string;
  let actor: Parameters<typeof tasks.updateTask>[0];
  let key: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabaseUrl();
    const queuePrefix = `sub-${randomBytes(4).toString('hex')}`;
    const logger = createLogger('silent', 'test');
    mcpSide = await createRuntime({ databaseUrl, redisUrl, queuePrefix, rateLimitPerMinute: 1000, logger });
    apiSide = await createRuntime({ databaseUrl, redisUrl, queuePrefix, rateLimitPerMinute: 1000, logger, migrate: false });
    const deps = apiSide.deps;
    const ws = await people.createWorkspace({ name: 'Acme', plan: 'business', timezone: 'Europe/Moscow' }, deps);
    const alice = await people.createUser(ws.id, { name: 'Alice', login: 'alice', role: '', isAdmin: true }, deps);
    const k = await keys.issueKey(alice.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps);
    token = k.token;
    actor = {
      workspace: { id: ws.id, name: ws.name, plan: ws.plan, timezone: ws.timezone, memberKeysEnabled: true },
      user: { ...alice, workspaceId: ws.id, deletedAt: null },
      key: { id: k.id, scopes: k.scopes as Scope[], projectIds: null },
    };
    const web = await projects.createProject(actor, { name: 'Website', key: 'WEB', description: '', template: 'simple' }, deps);
    key = (await tasks.createTask(actor, { title: 'Landing page', projectId: web.id }, deps)).key;
    mcp = await startMcp({ port: 0, host: '127.0.0.1', logLevel: 'silent' }, mcpSide);
  }, 60_000);

  afterAll(async () => {
    await mcp?.stop();
    await mcpSide?.close();
    await apiSide?.close();
    await dropTestDatabase(databaseUrl);
  });

  it('a change made in another process reaches the stream within a second; revoking the key there ends it', async () => {
    const client = new ClientV2({ name: 'redis-test', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new TransportV2(new URL(`${mcp.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const heard: Array<{ uri: string; at: number }> = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => void heard.push({ uri: n.params.uri, at: Date.now() }));
    const sub = await client.listen({ resourceSubscriptions: [`task://${key}`] });
    const until = async (n: number) => {
      const start = Date.now();
      while (heard.length < n && Date.now() - start < 2000) await new Promise((r) => setTimeout(r, 10));
    };
    const t0 = Date.now();
    await tasks.updateTask(actor, key, { priority: 'high' }, apiSide.deps);
    await until(1);
    expect(heard.map((h) => h.uri)).toEqual([`task://${key}`]);
    expect(heard[0]!.at - t0).toBeLessThan(1000);
    await comments.addComment(actor, key, { text: 'from the other process' }, apiSide.deps);
    await until(2);
    expect(heard).toHaveLength(2);
    await keys.revokeKey(actor.key.id, apiSide.deps);
    expect(await Promise.race([sub.closed, new Promise((r) => setTimeout(() => r('open'), 1000))])).toBe('remote');
    await client.close();
  });
});
