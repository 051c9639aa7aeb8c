import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys, people, projects, SCOPES, type Scope } from '@tt/domain';
import type { McpServerHandle } from './index.js';
import { callTool, mcpFixture, type McpFixture } from './test/fixture.js';

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
