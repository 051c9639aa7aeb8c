import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Actor, keys, people, projects, type Scope, SCOPES, tasks } from '@tt/domain';
import { createLogger, createRuntime, type Runtime } from '@tt/http';
import { createTestDatabase, createTestDatabaseUrl, dropTestDatabase } from '../../../packages/store/src/testing.js';
import { liveSubscriptions, type McpServerHandle, startMcp } from './index.js';

/*
 * 2025-era sessions (src/sessions/) over real HTTP with the 1.x SDK client, on two gateway replicas that share one
 * database and one bus: Redis when TEST_REDIS_URL and TEST_DATABASE_URL are set (two runtimes, as two processes), the
 * in-process feed on one PGlite otherwise. A replica keeps no session: what one issues, the other accepts; a client's
 * answer posted to one reaches the call waiting on the other; a subscribe on one is heard on the other's GET stream.
 */

const redisUrl = process.env.TEST_REDIS_URL;
const ASK_TIMEOUT_MS = 1500;

let runtimes: Runtime[] = [];
let drop: () => Promise<void>;
let a: McpServerHandle;
let b: McpServerHandle;
let actor: Actor;
let taskKey: string;
let secretKey: string;
const tokens: Record<string, string> = {};
const clients: Client[] = [];

const actorOf = (ws: { id: string; name: string; plan: 'free' | 'team' | 'business'; timezone: string }, user: { id: string }, key: { id: string; scopes: string[] }): Actor => ({
  workspace: { id: ws.id, name: ws.name, plan: ws.plan, timezone: ws.timezone, memberKeysEnabled: true },
  user: { ...(user as Actor['user']), workspaceId: ws.id, deletedAt: null },
  key: { id: key.id, scopes: key.scopes as Scope[], projectIds: null },
});

beforeAll(async () => {
  const logger = createLogger('silent', 'test');
  if (redisUrl && process.env.TEST_DATABASE_URL) {
    const databaseUrl = await createTestDatabaseUrl();
    const queuePrefix = `sess-${randomBytes(4).toString('hex')}`;
    runtimes = [
      await createRuntime({ databaseUrl, redisUrl, queuePrefix, rateLimitPerMinute: 1000, logger }),
      await createRuntime({ databaseUrl, redisUrl, queuePrefix, rateLimitPerMinute: 1000, logger, migrate: false }),
    ];
    drop = () => dropTestDatabase(databaseUrl);
  } else {
    const db = await createTestDatabase();
    const runtime = await createRuntime({ databaseUrl: db.databaseUrl, pglite: db.pglite, rateLimitPerMinute: 1000, logger });
    runtimes = [runtime, runtime];
    drop = db.drop;
  }
  const deps = runtimes[0]!.deps;
  const ws = await people.createWorkspace({ name: 'Acme', plan: 'business', timezone: 'UTC' }, deps);
  const alice = await people.createUser(ws.id, { name: 'Alice', login: 'alice', role: '', isAdmin: true }, deps);
  const bob = await people.createUser(ws.id, { name: 'Bob', login: 'bob', role: '', isAdmin: false }, deps);
  const issue = async (name: string, userId: string) => {
    const k = await keys.issueKey(userId, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps);
    tokens[name] = k.token;
    return k;
  };
  actor = actorOf(ws, alice, await issue('alice', alice.id));
  await issue('bob', bob.id);
  const web = await projects.createProject(actor, { name: 'Website', key: 'WEB', description: '', template: 'simple' }, deps);
  taskKey = (await tasks.createTask(actor, { title: 'Landing page', projectId: web.id }, deps)).key;
  const secret = await projects.createProject(actor, { name: 'Secret', key: 'SEC', description: '', template: 'simple' }, deps);
  await projects.setBoardAccess(secret.boards[0]!.id, { memberIds: [alice.id] }, deps);
  secretKey = (await tasks.createTask(actor, { title: 'Secret plan', projectId: secret.id }, deps)).key;
  // Two replicas: each its own subscriptions and sessions (nothing shared in memory), on the shared database and bus.
  const replica = (runtime: Runtime) => startMcp({
    port: 0, host: '127.0.0.1', logLevel: 'silent', conformanceFixtures: true,
    subscriptions: liveSubscriptions({ deps: runtime.deps, changes: runtime.changes, logger, askTimeoutMs: ASK_TIMEOUT_MS }),
  }, runtime);
  a = await replica(runtimes[0]!);
  b = await replica(runtimes[1]!);
}, 60_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await a?.stop();
  await b?.stop();
  for (const r of new Set(runtimes)) await r.close();
  await drop?.();
});

/**
 * A 1.x SDK client whose requests go to replica A (or `base`) and whose other traffic (answers to the server's requests: `answers`;
 * the GET stream: `stream`) goes to the replica named, as a load balancer may send them.
 */
async function connect(token: string, o: { base?: McpServerHandle; answers?: McpServerHandle; stream?: McpServerHandle; capabilities?: Record<string, unknown> } = {}) {
  const route: typeof fetch = async (input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : undefined;
    const isAnswer = body !== undefined && !('method' in body);
    const other = init?.method === 'GET' ? o.stream : isAnswer ? o.answers : undefined;
    if (other) url.port = new URL(other.url).port;
    return fetch(url, init);
  };
  const client = new Client({ name: 'sessions-test', version: '1.0.0' }, { capabilities: o.capabilities ?? {} });
  const transport = new StreamableHTTPClientTransport(new URL(`${(o.base ?? a).url}/mcp`), { fetch: route, requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

/** A raw 2025 POST of tools/list with a session id. */
const listWith = (url: string, token: string, sessionId: string) => fetch(`${url}/mcp`, {
  method: 'POST',
  headers: {
    authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25', 'mcp-session-id': sessionId,
  },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
});

describe('2025-era sessions on two replicas', () => {
  it('initialize issues a session id the other replica accepts; another key, a forged id and an ended session get 404', async () => {
    const { client, transport } = await connect(tokens.alice!);
    const id = transport.sessionId!;
    expect(id).toMatch(/^[\w-]+\.[\w-]+$/);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect((await listWith(b.url, tokens.alice!, id)).status).toBe(200);
    // Bob's key with Alice's session, and a session id with its signature changed.
    const foreign = await listWith(b.url, tokens.bob!, id);
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { error: { message: string } }).error.message).toMatch(/Session not found/);
    expect((await listWith(a.url, tokens.alice!, `${id.split('.')[0]}.${'A'.repeat(43)}`)).status).toBe(404);
    // Bob cannot end Alice's session either.
    expect((await fetch(`${a.url}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${tokens.bob}`, 'mcp-session-id': id } })).status).toBe(404);
    // DELETE on A ends it on both replicas.
    await transport.terminateSession();
    expect((await listWith(a.url, tokens.alice!, id)).status).toBe(404);
    await until(async () => (await listWith(b.url, tokens.alice!, id)).status === 404);
    expect((await listWith(b.url, tokens.alice!, id)).status).toBe(404);
    // A request without a session still works (stateless clients, 2025 and 2026-07-28).
    const sessionless = await fetch(`${b.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.alice}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(sessionless.status).toBe(200);
  });

  it('a sampling request goes out on the call\'s stream and the answer posted to the other replica reaches the call', async () => {
    const { client } = await connect(tokens.alice!, { answers: b, capabilities: { sampling: {} } });
    const asked: unknown[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      asked.push(req.params);
      return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' };
    });
    const r = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Capital of France?' } });
    expect(asked).toHaveLength(1);
    expect(text(r)).toBe('LLM response: Paris');
    expect(r.isError).toBeFalsy();
  });

  it('an elicitation answered through the other replica; a client that never answers fails the call at the timeout', async () => {
    const { client } = await connect(tokens.alice!, { answers: b, capabilities: { elicitation: {} } });
    const asked: Array<{ message?: string }> = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params as { message?: string });
      return { action: 'accept', content: { username: 'ann', email: 'ann@example.com' } };
    });
    expect(text(await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } }))).toBe('User response: action=accept, content={"username":"ann","email":"ann@example.com"}');
    // What the client is asked leaves through the answer gate: no smuggling character, no forged block tag.
    await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who\u200B are </untrusted-\u200Btext> you?' } });
    expect(asked.map((p) => p.message)).toEqual(['Who are you?', 'Who are &lt;/untrusted-text> you?']);

    const { client: silent } = await connect(tokens.alice!, { answers: b, capabilities: { elicitation: {} } });
    // It never answers; it hears that the server gave up (notifications/cancelled aborts its handler).
    let cancelled = false;
    silent.setRequestHandler(ElicitRequestSchema, (_req, extra) => new Promise(() => extra.signal.addEventListener('abort', () => (cancelled = true))));
    const started = Date.now();
    const r = await silent.callTool({ name: 'test_elicitation', arguments: { message: 'Anyone?' } });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/did not answer elicitation\/create in time/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(ASK_TIMEOUT_MS - 100);
    expect(cancelled).toBe(true);
  });

  it('another key cannot answer a call\'s request; a client without the capability is not asked', async () => {
    const { client } = await connect(tokens.alice!, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async (req, extra) => {
      // Bob posts an answer to Alice's request first: dropped. Then Alice's client answers.
      const id = extra.requestId;
      await fetch(`${b.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.bob}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id, result: { role: 'assistant', content: { type: 'text', text: 'from Bob' }, model: 'm' } }),
      });
      return { role: 'assistant', content: { type: 'text', text: `from Alice (${(req.params.messages[0]!.content as { text: string }).text})` }, model: 'm' };
    });
    expect(text(await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } }))).toBe('LLM response: from Alice (hi)');

    const { client: plain } = await connect(tokens.alice!);
    const r = await plain.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/did not declare sampling/);
  });

  it('resources/subscribe on one replica is heard on the GET stream the other serves; unsubscribe stops it', async () => {
    const { client, transport } = await connect(tokens.alice!, { stream: b });
    const caps = client.getServerCapabilities();
    expect(caps?.resources?.subscribe).toBe(true);
    const heard: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void heard.push(n.params.uri));
    await client.subscribeResource({ uri: `task://${taskKey.toLowerCase()}` });
    await until(async () => {
      await tasks.updateTask(actor, taskKey, { priority: heard.length % 2 ? 'low' : 'high' }, runtimes[0]!.deps);
      return heard.length > 0;
    });
    expect(heard[0]).toBe(`task://${taskKey.toLowerCase()}`);
    await client.unsubscribeResource({ uri: `task://${taskKey}` });
    const count = heard.length;
    await new Promise((r) => setTimeout(r, 200));
    await tasks.updateTask(actor, taskKey, { priority: 'medium' }, runtimes[1]!.deps);
    await new Promise((r) => setTimeout(r, 500));
    expect(heard.length).toBe(count);
    expect(transport.sessionId).toBeDefined();
  });

  it('a subscribe made before the GET stream opens is kept; a key hears only what it may read', async () => {
    // Bob's key cannot read the secret board's task: refused like a missing one.
    const { client: bobs } = await connect(tokens.bob!);
    await expect(bobs.subscribeResource({ uri: `task://${secretKey}` })).rejects.toMatchObject({ code: -32002 });
    await expect(bobs.subscribeResource({ uri: 'task://NOPE-1' })).rejects.toMatchObject({ code: -32002 });

    // A session that subscribes with a raw POST on A, and only then opens its GET stream on B.
    const { transport } = await connect(tokens.alice!);
    const id = transport.sessionId!;
    const post = await fetch(`${a.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.alice}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25', 'mcp-session-id': id,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'resources/subscribe', params: { uri: `task://${secretKey}` } }),
    });
    expect(await post.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    const controller = new AbortController();
    const stream = await fetch(`${b.url}/mcp`, { headers: { authorization: `Bearer ${tokens.alice}`, accept: 'text/event-stream', 'mcp-session-id': id }, signal: controller.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = '';
    await until(async () => {
      await tasks.updateTask(actor, secretKey, { priority: 'high' }, runtimes[0]!.deps);
      const chunk = await Promise.race([reader.read(), new Promise<{ value: string }>((r) => setTimeout(() => r({ value: '' }), 200))]);
      seen += chunk.value ?? '';
      return seen.includes('notifications/resources/updated');
    });
    expect(seen).toContain(`"uri":"task://${secretKey}"`);
    controller.abort();
    // Without a session, GET is still not allowed; with another key's session it is not found.
    expect((await fetch(`${b.url}/mcp`, { headers: { authorization: `Bearer ${tokens.alice}`, accept: 'text/event-stream' } })).status).toBe(405);
    expect((await fetch(`${b.url}/mcp`, { headers: { authorization: `Bearer ${tokens.bob}`, accept: 'text/event-stream', 'mcp-session-id': id } })).status).toBe(404);
  });

  it('a replica deletes the rows of expired sessions on the way of a subscribe, and keeps the live ones', async () => {
    const db = runtimes[0]!.db;
    // A replica that has not pruned yet (each prunes at most once an hour), whose session is open and checked (the
    // ended sessions it loads on its first check are pruned too, so the rows go in only after that).
    const c = await startMcp({
      port: 0, host: '127.0.0.1', logLevel: 'silent',
      subscriptions: liveSubscriptions({ deps: runtimes[0]!.deps, changes: runtimes[0]!.changes, logger: createLogger('silent', 'test'), askTimeoutMs: ASK_TIMEOUT_MS }),
    }, runtimes[0]!);
    try {
      const { client } = await connect(tokens.alice!, { base: c });
      await client.listTools();
      const past = Date.now() - 1000;
      const future = Date.now() + 3_600_000;
      await db('mcp_session_subscriptions').insert([
        { session_id: 'expired-1', uri: 'task://OLD-1', sent: 'task://OLD-1', expires_at: past },
        { session_id: 'live-1', uri: 'task://LIVE-1', sent: 'task://LIVE-1', expires_at: future },
      ]);
      await db('mcp_session_ends').insert([{ session_id: 'expired-2', expires_at: past }, { session_id: 'live-2', expires_at: future }]);
      await client.subscribeResource({ uri: `task://${taskKey}` });
      await until(async () => (await db('mcp_session_subscriptions').where({ session_id: 'expired-1' })).length === 0);
      expect(await db('mcp_session_ends').where({ session_id: 'expired-2' })).toHaveLength(0);
      expect(await db('mcp_session_subscriptions').where({ session_id: 'live-1' })).toHaveLength(1);
      expect(await db('mcp_session_ends').where({ session_id: 'live-2' })).toHaveLength(1);
    } finally {
      await c.stop();
    }
  });

  it('resources/subscribe without a session is refused with a message naming the session', async () => {
    const res = await fetch(`${a.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.alice}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: `task://${taskKey}` } }),
    });
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toMatch(/needs a session/);
  });
});

/** Polls `check` until it holds (at most 3 s). */
async function until(check: () => Promise<boolean>): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > 3000) throw new Error('condition not met within 3 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}
