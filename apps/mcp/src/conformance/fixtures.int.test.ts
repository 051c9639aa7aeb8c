import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys, people, SCOPES } from '@tt/domain';
import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { mcpFixture, type McpFixture } from '../test/fixture.js';
import { connectTasks } from '../test/tasks-client.js';
import { TOOLS } from '../server.js';
import { startMcp } from '../index.js';
import { FIXTURE_PROMPTS, fixtureTools } from './index.js';

/*
 * The conformance suite's fixtures exist only behind MCP_CONFORMANCE_FIXTURES. Walked from the fixture registry (not
 * a hand-kept list): with the switch off none is listed or callable in either era; with it on they are served beside
 * the real tools, through the same paths.
 */

const FIXTURE_TOOLS = [...new Set([...fixtureTools('legacy'), ...fixtureTools('modern')].map((t) => t.name))];
const FIXTURE_RESOURCES = ['test://static-text', 'test://static-binary', 'test://template/123/data'];

/** Two keys of one user (a task is its key's) and the gateway's URL. */
async function withKey(fx: McpFixture): Promise<{ token: string; other: string; url: string }> {
  const deps = fx.runtime.deps;
  const ws = await people.createWorkspace({ name: 'Conformance', plan: 'business', timezone: 'UTC' }, deps);
  const ann = await people.createUser(ws.id, { name: 'Ann', login: 'ann', role: 'Lead', isAdmin: true }, deps);
  const issue = async () => (await keys.issueKey(ann.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps)).token;
  const [token, other] = [await issue(), await issue()];
  const { url } = await fx.start();
  return { token, other, url };
}

/** One 2026-07-28 tools/call as it goes on the wire (the SDK's client answers input requests by itself). */
async function call2026(url: string, token: string, params: Record<string, unknown>): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  };
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': String(params.name),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...params, _meta: meta } }),
  });
  return (await res.json()) as never;
}

/** An acknowledgement as the extension defines it: `resultType` alone, beside the server's `_meta` stamp. */
const ack = (result: Record<string, unknown> | undefined) => {
  const { _meta: _stamp, ...rest } = result ?? {};
  return rest;
};

/** One 2026-07-28 request of a client that follows tasks (or not: `ext` false), as it goes on the wire. */
async function rpc2026(url: string, token: string, method: string, params: Record<string, unknown>, o: { ext?: boolean } = {}): Promise<{ result?: any; error?: { code: number; message: string; data?: any } }> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, ...(o.ext === false ? {} : { extensions: { 'io.modelcontextprotocol/tasks': {} } }) },
  };
  const name = params.name ?? params.taskId;
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }),
  });
  return (await res.json()) as never;
}

describe('switch off (the default)', () => {
  let fx: McpFixture;
  let token: string;
  beforeAll(async () => {
    fx = await mcpFixture();
    ({ token } = await withKey(fx));
  }, 60_000);
  afterAll(() => fx?.close());

  for (const era of ['2025-11-25', '2026-07-28'] as const) {
    const connect = () => (era === '2025-11-25' ? fx.connect(token) : fx.connectV2(token, 'pinned'));

    it(`${era}: lists no fixture tool, prompt or resource`, async () => {
      const client = await connect();
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(TOOLS.map((t) => t.name));
      const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
      for (const p of FIXTURE_PROMPTS) expect(prompts).not.toContain(p.name);
      const uris = (await client.listResources()).resources.map((r) => r.uri);
      const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
      expect([...uris, ...templates].filter((u) => u.startsWith('test://'))).toEqual([]);
    });

    it(`${era}: calls no fixture: each is refused as unknown (-32602)`, async () => {
      const client = await connect();
      for (const name of FIXTURE_TOOLS) await expect(client.callTool({ name, arguments: {} }), name).rejects.toMatchObject({ code: -32602 });
      for (const p of FIXTURE_PROMPTS) await expect(client.getPrompt({ name: p.name, arguments: {} }), p.name).rejects.toMatchObject({ code: -32602 });
      for (const uri of FIXTURE_RESOURCES) await expect(client.readResource({ uri }), uri).rejects.toMatchObject({ code: era === '2025-11-25' ? -32002 : -32602 });
      await expect(client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 't' } }))
        .rejects.toMatchObject({ code: -32602 });
    });
  }

  it('2025-11-25: declares no logging and answers logging/setLevel as an unknown method', async () => {
    const client = await fx.connect(token);
    expect(client.getServerCapabilities()?.logging).toBeUndefined();
    await expect(client.setLoggingLevel('debug')).rejects.toMatchObject({ code: -32601 });
  });
});

describe('switch on (MCP_CONFORMANCE_FIXTURES=1)', () => {
  let fx: McpFixture;
  let token: string;
  let other: string;
  let url: string;
  beforeAll(async () => {
    fx = await mcpFixture({ conformanceFixtures: true });
    ({ token, other, url } = await withKey(fx));
  }, 60_000);
  afterAll(() => fx?.close());

  it('2026-07-28: lists every fixture tool after the real ones', async () => {
    const client = await fx.connectV2(token, 'pinned');
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual([...TOOLS.map((t) => t.name), ...fixtureTools('modern').map((t) => t.name)]);
  });

  it('2025-11-25: progress and log messages of a call reach the client on its own response stream', async () => {
    const client = await fx.connect(token);
    const progress: number[] = [];
    const result = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(progress).toEqual([0, 50, 100]);
    expect(result.isError).toBeFalsy();
    const logged: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(n.params.data));
    await client.setLoggingLevel('debug');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    expect(logged).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed']);
  });

  it('2026-07-28: a signed requestState completes the call; the same state tampered is refused with -32602', async () => {
    const name = 'test_input_required_result_tampered_state';
    const first = await call2026(url, token, { name, arguments: {} });
    expect(first.result).toMatchObject({ resultType: 'input_required' });
    const state = String(first.result?.requestState);
    const inputResponses = { confirm: { action: 'accept', content: { ok: true } } };
    const done = await call2026(url, token, { name, arguments: {}, inputResponses, requestState: state });
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'state-ok' }] });
    const tampered = await call2026(url, token, { name, arguments: {}, inputResponses, requestState: `${state}-TAMPERED` });
    expect(tampered.error).toMatchObject({ code: -32602, message: expect.stringContaining('requestState') });
  });

  /** tasks/get until the task leaves `status` (at `at`, default this gateway). */
  async function until(taskId: string, left: string, at = url) {
    for (let i = 0; i < 200; i++) {
      const r = await rpc2026(at, token, 'tasks/get', { taskId });
      if (r.result?.status !== left) return r.result;
      await new Promise((f) => setTimeout(f, 25));
    }
    throw new Error(`task ${taskId} still ${left}`);
  }

  it('2026-07-28: a task waiting for input is resumed by whichever gateway receives the answers, one answer at a time', async () => {
    const created = await rpc2026(url, token, 'tools/call', { name: 'multi_input', arguments: {} });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    const { taskId } = created.result;
    const waiting = await until(taskId, 'working');
    expect(waiting).toMatchObject({ status: 'input_required', inputRequests: { first: { method: 'elicitation/create' }, second: { method: 'elicitation/create' } } });
    // A second gateway on the same database takes the answers: the run's state is the database's, not a process's.
    const second = await startMcp({ port: 0, host: '127.0.0.1', logLevel: 'silent', conformanceFixtures: true }, fx.runtime);
    try {
      const at = second.url;
      const answer = (key: string, name: string) => rpc2026(at, token, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { name } } } });
      expect(ack((await answer('first', 'Ann')).result)).toEqual({ resultType: 'complete' });
      const half = (await rpc2026(url, token, 'tasks/get', { taskId })).result;
      expect(half.status).toBe('input_required');
      expect(Object.keys(half.inputRequests)).toEqual(['second']);
      // Another key sees no such task; an answer to nothing asked is ignored.
      expect((await rpc2026(at, other, 'tasks/update', { taskId, inputResponses: { second: { action: 'accept', content: { name: 'Eve' } } } })).error?.code).toBe(-32602);
      expect(ack((await rpc2026(at, token, 'tasks/update', { taskId, inputResponses: { third: { action: 'accept', content: {} } } })).result)).toEqual({ resultType: 'complete' });
      await answer('second', 'Bob');
      const done = await until(taskId, 'working', at);
      expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'Received Ann and Bob' }] } });
      expect(done).not.toHaveProperty('inputRequests');
    } finally {
      second.server.closeAllConnections();
      await new Promise((f) => second.server.close(f));
    }
  });

  it('2026-07-28: a required-task tool refuses a client without the extension (-32021); errors end completed or failed; a cancel stops the work', async () => {
    const refused = await rpc2026(url, token, 'tools/call', { name: 'failing_job', arguments: {} }, { ext: false });
    expect(refused.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } });
    // Without the extension an optional one runs in the call.
    expect((await rpc2026(url, token, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0 } }, { ext: false })).result).toMatchObject({ resultType: 'complete', content: [{ type: 'text' }] });
    const failing = (await rpc2026(url, token, 'tools/call', { name: 'failing_job', arguments: {} })).result;
    expect(await until(failing.taskId, 'working')).toMatchObject({ status: 'completed', result: { isError: true } });
    const broken = (await rpc2026(url, token, 'tools/call', { name: 'protocol_error_job', arguments: {} })).result;
    const failed = await until(broken.taskId, 'working');
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32603, message: expect.stringContaining('protocol_error_job') } });
    expect(failed).not.toHaveProperty('result');
    const slow = (await rpc2026(url, token, 'tools/call', { name: 'slow_compute', arguments: { seconds: 1 } })).result;
    expect(ack((await rpc2026(url, token, 'tasks/cancel', { taskId: slow.taskId })).result)).toEqual({ resultType: 'complete' });
    await new Promise((f) => setTimeout(f, 1500));
    expect((await rpc2026(url, token, 'tasks/get', { taskId: slow.taskId })).result).toMatchObject({ status: 'cancelled' });
  });

  it("2026-07-28, through the extension's own client: input asked within a task is answered with tasks/update; an error result completes, a protocol error fails", async () => {
    const asked: string[] = [];
    const names: Record<string, string> = { first: 'Ann', second: 'Bob' };
    const c = await connectTasks(url, token, {
      onInputRequest: async (request, context) => {
        asked.push(`${request.kind} ${context.inputId} ${context.delivery}`);
        return { action: 'accept', content: { name: names[context.inputId!]! } } as never; // an elicitation's answer (the handler's type is generic over the request kind)
      },
    });
    try {
      const input = await c.session.callTool('multi_input', {});
      expect(input.kind).toBe('task');
      const answered = await input.settle();
      expect(asked.sort()).toEqual(['elicitation first task-update', 'elicitation second task-update']);
      expect(c.sent).toContain('tasks/update');
      expect(resultFromTaskOutcome(answered.outcome)).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Received Ann and Bob' }] });
      const failing = await (await c.session.callTool('failing_job', {})).settle();
      expect(failing.outcome.status).toBe('completed');
      expect(resultFromTaskOutcome(failing.outcome)).toMatchObject({ isError: true });
      const broken = await (await c.session.callTool('protocol_error_job', {})).settle();
      expect(broken.outcome).toMatchObject({ status: 'failed', error: { code: -32603, message: expect.stringContaining('protocol_error_job') } });
    } finally {
      await c.close();
    }
  });
});
