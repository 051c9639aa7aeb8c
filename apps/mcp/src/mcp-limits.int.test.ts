import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Actor, keys, people, projects, type Scope, SCOPES } from '@tt/domain';
import { createRuntime, listen, type Runtime } from '@tt/http';
import { type McpServerHandle, startMcp } from './index.js';
import { callTool, callTool as call, mcpFixture, type McpFixture } from './test/fixture.js';
import { createMcpApp } from './app.js';
import { createTestDatabase } from '../../../packages/store/src/testing.js';

// This file's own tests; their setup and state stay inside this describe.
describe('mcp-limits', () => {
  /*
   * Limits on the shape of what a client sends: JSON nested deeper than MAX_JSON_DEPTH (64) levels, in tool arguments
   * or anywhere in the JSON-RPC envelope, is refused with a message naming the problem, never a crash. Deep values are
   * written as text: JSON.stringify itself overflows the stack a few thousand levels down.
   */

  let fx: McpFixture;
  let mcp: McpServerHandle;
  let token: string;
  let projectId: string;

  /** JSON text of arrays nested `levels` deep. */
  const deepJson = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

  /** Posts raw JSON text to /mcp as the test key. */
  async function post(text: string): Promise<{ status: number; body: any }> {
    const res = await fetch(`${mcp.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: text,
    });
    const raw = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = raw;
    }
    return { status: res.status, body };
  }

  /** A tools/call message whose `arguments` is the JSON text given. */
  const toolCall = (name: string, argumentsJson: string, id = 7) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${argumentsJson}}}`;

  beforeAll(async () => {
    fx = await mcpFixture();
    const deps = fx.runtime.deps;
    const ws = await people.createWorkspace({ name: 'Limits', plan: 'business', timezone: 'Europe/Moscow' }, deps);
    const ann = await people.createUser(ws.id, { name: 'Ann', login: 'ann', role: '', isAdmin: true }, deps);
    const key = await keys.issueKey(ann.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps);
    token = key.token;
    const actor = {
      workspace: { id: ws.id, name: ws.name, plan: ws.plan, timezone: ws.timezone, memberKeysEnabled: true },
      user: { ...ann, workspaceId: ws.id, deletedAt: null },
      key: { id: key.id, scopes: key.scopes as Scope[], projectIds: null },
    };
    projectId = (await projects.createProject(actor, { name: 'Website', key: 'WEB', template: 'scrum' }, deps)).id;
    mcp = await fx.start();
  }, 60_000);

  afterAll(() => fx?.close());

  describe('MCP: JSON nesting and shape limits', () => {
    it('a tool argument nested 10 000 levels deep is a tool error naming the problem, on several tools', async () => {
      for (const name of ['create_task', 'update_task', 'search_tasks', 'add_comment', 'log_time', 'create_doc']) {
        const res = await post(toolCall(name, `{"title":"x","labels":${deepJson(10_000)}}`));
        expect(res.status, name).toBe(200);
        expect(res.body.result?.isError, name).toBe(true);
        expect(res.body.result.content[0].text, name).toBe('invalid_request: arguments: nested deeper than 64 levels');
      }
    });

    it('tool arguments nested a million levels deep (1 MB) are refused the same way', async () => {
      const res = await post(toolCall('create_task', deepJson(499_900).replace(/^\[/, '{"a":[').replace(/\]$/, ']}')));
      expect(res.status).toBe(200);
      expect(res.body.result.content[0].text).toBe('invalid_request: arguments: nested deeper than 64 levels');
    });

    it('the SDK client gets the same tool error for arguments just past the limit, and the limit itself passes the depth check', async () => {
      const client = await fx.connect(token);
      let labels: unknown = 'ui';
      for (let i = 0; i < 64; i++) labels = [labels];
      const deep = await callTool(client, 'create_task', { title: 'Deep', projectId, labels });
      expect(deep.isError).toBe(true);
      expect(deep.text).toBe('invalid_request: arguments: nested deeper than 64 levels');
      // One level less is the schema's business: labels must be a list of strings.
      const atLimit = await callTool(client, 'create_task', { title: 'Deep', projectId, labels: (labels as unknown[])[0] });
      expect(atLimit.isError).toBe(true);
      expect(atLimit.text).toMatch(/^invalid_request: labels\.0: /);
      expect(atLimit.text).not.toMatch(/nested/);
    });

    it('a deep value elsewhere in the JSON-RPC envelope is a JSON-RPC error with the same message, never a 500', async () => {
      const deepObject = deepJson(10_000).replace(/^\[/, '{"x":[').replace(/\]$/, ']}');
      const envelopes: Array<[string, string]> = [
        [`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"a":${deepJson(10_000)}}}`, 'params.a'],
        [`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{},"_meta":${deepObject}}}`, 'params._meta'],
        [`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${deepJson(10_000)}}`, 'params'],
        [`{"jsonrpc":"2.0","id":${deepJson(10_000)},"method":"tools/list"}`, 'id'],
        [`[${toolCall('whoami', '{}')},{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"a":${deepJson(10_000)}}}]`, 'params.a'],
        [deepJson(10_000), 'message'],
      ];
      for (const [text, where] of envelopes) {
        const res = await post(text);
        expect(res.status, text.slice(0, 80)).toBe(400);
        // The request's id when it has a plain one (a 2026-07-28 client matches errors by id), else null.
        const id = text.startsWith('{"jsonrpc":"2.0","id":1,') ? 1 : null;
        expect(res.body, text.slice(0, 80)).toEqual({ jsonrpc: '2.0', id, error: { code: -32600, message: `${where}: nested deeper than 64 levels` } });
      }
      // The server keeps serving.
      expect((await post(toolCall('whoami', '{}'))).body.result.isError).toBeUndefined();
    });

    it('null or non-object tool arguments are a JSON-RPC error naming the problem, never run as no arguments', async () => {
      for (const [args, kind] of [['null', 'null'], ['[]', 'an array'], ['"x"', 'a string'], ['3', 'a number']] as const) {
        const res = await post(toolCall('whoami', args));
        expect(res.status, args).toBe(400);
        expect(res.body, args).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: `arguments: must be a JSON object, not ${kind}` } });
      }
      // Arguments left out are no arguments, as before.
      expect((await post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}`)).body.result.isError).toBeUndefined();
    });
  });
});

// The tests of apps/mcp/src/mcp-rate-limit.int.test.ts, folded in here (one test process and one module load for them all); their setup and state stay inside this describe.
describe('mcp-rate-limit', () => {
  /*
   * Issue 30 part 6 over the SDK clients, with a budget of 5 tool calls a minute: a call over it is a tool result the
   * model reads ("retry in N s"), never a transport failure; the handshake, server/discover and the lists spend none of
   * it (they have a ceiling of their own, 10x, answered 429). And a 2026-07-28 traceparent reaches the logs.
   */

  const LIMIT = 5;
  let dropDb: (() => Promise<void>) | undefined;
  let runtime: Runtime;
  let mcp: McpServerHandle;
  let deps: Runtime['deps'];
  let userId = '';

  const newKey = async () => (await keys.issueKey(userId, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps)).token;
  const headers = (token: string) => ({ requestInit: { headers: { Authorization: `Bearer ${token}` } } });

  beforeAll(async () => {
    const { databaseUrl, pglite, drop } = await createTestDatabase();
    dropDb = drop;
    runtime = await createRuntime({ databaseUrl, pglite, rateLimitPerMinute: LIMIT, logger: pino({ level: 'silent' }) });
    deps = runtime.deps;
    const ws = await people.createWorkspace({ name: 'Limits', plan: 'business', timezone: 'UTC' }, deps);
    userId = (await people.createUser(ws.id, { name: 'Ann', login: 'ann', role: '', isAdmin: true }, deps)).id;
    mcp = await startMcp({ port: 0, host: '127.0.0.1', logLevel: 'silent' }, runtime);
  }, 60_000);

  afterAll(async () => {
    await mcp?.stop();
    await runtime?.close();
    await dropDb?.();
  });

  describe('the tool-call budget on /mcp', () => {
    it('connecting, discovering and listing spend nothing: 10 connects (30 messages, 6x the budget), then the whole budget is left', async () => {
      const token = await newKey();
      for (let i = 0; i < 5; i++) {
        const v1 = new Client({ name: 'v1', version: '1' });
        await v1.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), headers(token)));
        await v1.listTools();
        await v1.listResources();
        await v1.close();
        const v2 = new ClientV2({ name: 'v2', version: '2' }, { versionNegotiation: { mode: 'auto' } });
        await v2.connect(new TransportV2(new URL(`${mcp.url}/mcp`), headers(token)));
        await v2.listTools();
        await v2.close();
      }
      const client = new ClientV2({ name: 'v2', version: '2' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(new TransportV2(new URL(`${mcp.url}/mcp`), headers(token)));
      for (let i = 0; i < LIMIT; i++) expect((await callTool(client, 'whoami')).isError, `call ${i + 1}`).toBeFalsy();
      await client.close();
    }, 60_000);

    for (const kind of ['v1', 'v2'] as const) {
      it(`${kind}: a call over the budget is a tool error naming the wait, and the client keeps working`, async () => {
        const token = await newKey();
        const client = kind === 'v1' ? new Client({ name: 'v1', version: '1' }) : new ClientV2({ name: 'v2', version: '2' }, { versionNegotiation: { mode: 'auto' } });
        const transport = kind === 'v1' ? new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), headers(token)) : new TransportV2(new URL(`${mcp.url}/mcp`), headers(token));
        await (client as Client).connect(transport as StreamableHTTPClientTransport);
        for (let i = 0; i < LIMIT; i++) expect((await callTool(client, 'whoami')).isError).toBeFalsy();
        const over = await callTool(client, 'whoami');
        expect(over.isError).toBe(true);
        expect(over.text).toMatch(/^rate_limited: .*retry in \d+ s$/);
        const wait = Number(/retry in (\d+) s/.exec(over.text)![1]);
        expect(wait).toBeGreaterThan(0);
        expect(wait).toBeLessThanOrEqual(60);
        // Still connected: protocol traffic goes on.
        expect((await client.listTools()).tools.length).toBeGreaterThan(0);
        await client.close();
      });
    }

    it('protocol traffic has a ceiling of its own (10x), answered 429 with Retry-After and the request id', async () => {
      const token = await newKey();
      let res: Response | undefined;
      for (let i = 0; i <= LIMIT * 10; i++) {
        res = await fetch(`${mcp.url}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
          body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }),
        });
        if (i < LIMIT * 10) expect(res.status, `message ${i + 1}`).toBe(200);
      }
      expect(res!.status).toBe(429);
      expect(Number(res!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await res!.json()).toMatchObject({ id: LIMIT * 10, error: { code: -32000 } });
    });
  });

  describe('trace context', () => {
    it('a traceparent in a 2026-07-28 request\'s _meta is carried into the request\'s log lines', async () => {
      const lines: string[] = [];
      const sink = new Writable({ write: (chunk, _enc, done) => void (lines.push(String(chunk)), done()) });
      const app = createMcpApp({ runtime, logger: pino({ level: 'debug' }, sink), trustProxy: false, allowedHosts: ['127.0.0.1', 'localhost'], metrics: false });
      const server = await listen(app, 0, '127.0.0.1');
      try {
        const port = (server.address() as { port: number }).port;
        const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
        const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${await newKey()}`,
            'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list',
          },
          body: JSON.stringify({
            jsonrpc: '2.0', id: 1, method: 'tools/list',
            params: { _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': {}, traceparent,
            } },
          }),
        });
        expect(res.status).toBe(200);
        const traced = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.traceparent === traceparent);
        expect(traced.length).toBeGreaterThan(0);
        expect(traced[0]).toMatchObject({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', method: 'tools/list' });
      } finally {
        await new Promise((resolve) => server.close(resolve));
        await app.closeMcp();
      }
    });
  });
});

// The tests of apps/mcp/src/mcp-request-id.int.test.ts, folded in here (one test process and one module load for them all); their setup and state stay inside this describe.
describe('mcp-request-id', () => {
  let fx: McpFixture;
  let client: Client;
  let otherKeyClient: Client;

  const tasksTitled = async (title: string) => Number((await fx.runtime.db('tasks').where({ title }).count({ c: '*' }).first())!.c);

  beforeAll(async () => {
    fx = await mcpFixture();
    const deps = fx.runtime.deps;
    const ws = await people.createWorkspace({ name: 'Retry Co', plan: 'business', timezone: 'Europe/Moscow' }, deps);
    const alice = await people.createUser(ws.id, { name: 'Alice', login: 'alice', role: 'Lead', isAdmin: true }, deps);
    const issue = () => keys.issueKey(alice.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps);
    const key = await issue();
    const actor: Actor = {
      workspace: { id: ws.id, name: ws.name, plan: ws.plan, timezone: ws.timezone, memberKeysEnabled: true },
      user: { ...alice, workspaceId: ws.id, deletedAt: null },
      key: { id: key.id, scopes: [...SCOPES], projectIds: null },
    };
    await projects.createProject(actor, { name: 'Agents', key: 'AGT', description: '', template: 'simple' }, deps);
    await fx.start();
    client = await fx.connect(key.token);
    otherKeyClient = await fx.connect((await issue()).token);
  }, 60_000);

  afterAll(() => fx?.close());

  describe('create_task requestId', () => {
    it('returns the first result again for the same requestId and arguments, creating one task', async () => {
      const args = { title: 'Agent retry', project: 'AGT', priority: 'high', requestId: 'run-1-step-3' };
      const first = await call(client, 'create_task', args);
      expect(first.isError).toBeFalsy();
      expect(first.text).toMatch(/^Created AGT-\d+\./);
      const key = /Created (AGT-\d+)/.exec(first.text)![1];
      const again = await call(client, 'create_task', { ...args });
      expect(again.isError).toBeFalsy();
      expect(again.text).toContain('Replayed: requestId "run-1-step-3"');
      expect(again.text).toContain(`Created ${key}.`);
      expect(again.text.endsWith(first.text)).toBe(true);
      expect(await tasksTitled('Agent retry')).toBe(1);
    });

    it('refuses the same requestId with other arguments, naming requestId', async () => {
      await call(client, 'create_task', { title: 'Agent first', project: 'AGT', requestId: 'run-2' });
      const other = await call(client, 'create_task', { title: 'Agent second', project: 'AGT', requestId: 'run-2' });
      expect(other.isError).toBe(true);
      expect(other.text).toMatch(/^idempotency_key_reused: requestId: /);
      expect(await tasksTitled('Agent second')).toBe(0);
    });

    it('keeps no failed call: the agent fixes its arguments and retries with the same requestId', async () => {
      const failed = await call(client, 'create_task', { title: 'Agent fixed', project: 'NOPE', requestId: 'run-3' });
      expect(failed.isError).toBe(true);
      expect(failed.text).toMatch(/^not_found: /);
      const fixed = await call(client, 'create_task', { title: 'Agent fixed', project: 'AGT', requestId: 'run-3' });
      expect(fixed.isError).toBeFalsy();
      expect(fixed.text).toMatch(/^Created AGT-\d+\./);
      expect(await tasksTitled('Agent fixed')).toBe(1);
    });

    it('stores the result in the transaction of the write: when storing it fails, nothing is created and the retry runs once', async () => {
      const args = { title: 'Result lost', project: 'AGT', requestId: 'run-9-step-1' };
      await fx.runtime.db.raw(`ALTER TABLE idempotency_keys ADD CONSTRAINT test_refuse_result CHECK (status IS NULL) NOT VALID`);
      try {
        const failed = await call(client, 'create_task', args);
        expect(failed.isError).toBe(true);
      } finally {
        await fx.runtime.db.raw('ALTER TABLE idempotency_keys DROP CONSTRAINT test_refuse_result');
      }
      expect(await tasksTitled('Result lost')).toBe(0);
      const retry = await call(client, 'create_task', args);
      expect(retry.isError).toBeFalsy();
      expect((await call(client, 'create_task', args)).text).toContain('Replayed');
      expect(await tasksTitled('Result lost')).toBe(1);
    });

    it('runs once when two calls with one requestId arrive at once, and is scoped to the API key', async () => {
      const args = { title: 'Agent raced', project: 'AGT', requestId: 'run-4' };
      const results = await Promise.all([call(client, 'create_task', args), call(client, 'create_task', args)]);
      const created = results.filter((r) => !r.isError && !r.text.startsWith('Replayed'));
      expect(created).toHaveLength(1);
      for (const r of results) {
        if (r !== created[0]) expect(r.isError ? r.text : 'replayed').toMatch(/^(idempotency_conflict: |replayed)/);
      }
      expect(await tasksTitled('Agent raced')).toBe(1);
      // Another API key with the same requestId is another agent: its call runs.
      const theirs = await call(otherKeyClient, 'create_task', args);
      expect(theirs.text).toMatch(/^Created AGT-\d+\./);
      expect(await tasksTitled('Agent raced')).toBe(2);
    });

    it('refuses a requestId that is not printable ASCII, and creates without one as before', async () => {
      const bad = await call(client, 'create_task', { title: 'Agent bad id', project: 'AGT', requestId: 'ä' });
      expect(bad.text).toMatch(/^invalid_request: requestId: /);
      await call(client, 'create_task', { title: 'Agent plain', project: 'AGT' });
      await call(client, 'create_task', { title: 'Agent plain', project: 'AGT' });
      expect(await tasksTitled('Agent plain')).toBe(2);
      expect(await tasksTitled('Agent bad id')).toBe(0);
    });
  });
});
