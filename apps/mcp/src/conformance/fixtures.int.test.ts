import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys, people, SCOPES } from '@tt/domain';
import { mcpFixture, type McpFixture } from '../test/fixture.js';
import { TOOLS } from '../server.js';
import { FIXTURE_PROMPTS, fixtureTools } from './index.js';

/*
 * The conformance suite's fixtures exist only behind MCP_CONFORMANCE_FIXTURES. Walked from the fixture registry (not
 * a hand-kept list): with the switch off none is listed or callable in either era; with it on they are served beside
 * the real tools, through the same paths.
 */

const FIXTURE_TOOLS = [...new Set([...fixtureTools('legacy'), ...fixtureTools('modern')].map((t) => t.name))];
const FIXTURE_RESOURCES = ['test://static-text', 'test://static-binary', 'test://template/123/data'];

async function withKey(fx: McpFixture): Promise<{ token: string; url: string }> {
  const deps = fx.runtime.deps;
  const ws = await people.createWorkspace({ name: 'Conformance', plan: 'business', timezone: 'UTC' }, deps);
  const ann = await people.createUser(ws.id, { name: 'Ann', login: 'ann', role: 'Lead', isAdmin: true }, deps);
  const { token } = await keys.issueKey(ann.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps);
  const { url } = await fx.start();
  return { token, url };
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
  let url: string;
  beforeAll(async () => {
    fx = await mcpFixture({ conformanceFixtures: true });
    ({ token, url } = await withKey(fx));
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
});
