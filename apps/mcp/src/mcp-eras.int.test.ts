import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Actor, docs, keys, meetings, people, projects, type Scope, SCOPES, tasks } from '@tt/domain';
import { TOOLS } from './server.js';
import { callTool, mcpFixture, type McpFixture } from './test/fixture.js';

/*
 * Both protocol eras on one URL: the SDK's 1.x client (2025-era handshake), the v2 client pinned to 2026-07-28 and
 * the v2 client negotiating (auto) each list and call every tool on /mcp, and read the resources; /mcp/readonly the
 * same on 2026-07-28. Then what 2026-07-28 asks of a server, checked on the wire.
 */

let fx: McpFixture;
let token: string;
let url: string;
let taskKey: string;
let docId: string;
let meetingId: string;

beforeAll(async () => {
  fx = await mcpFixture();
  const deps = fx.runtime.deps;
  const ws = await people.createWorkspace({ name: 'Eras', plan: 'business', timezone: 'Europe/Moscow' }, deps);
  const ann = await people.createUser(ws.id, { name: 'Ann', login: 'ann', role: 'Lead', isAdmin: true }, deps);
  const key = await keys.issueKey(ann.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps);
  token = key.token;
  const actor: Actor = {
    workspace: { id: ws.id, name: ws.name, plan: ws.plan, timezone: ws.timezone, memberKeysEnabled: true },
    user: { ...ann, workspaceId: ws.id, deletedAt: null },
    key: { id: key.id, scopes: key.scopes as Scope[], projectIds: null },
  };
  const project = await projects.createProject(actor, { name: 'Website', key: 'WEB', description: '', template: 'simple' }, deps);
  taskKey = (await tasks.createTask(actor, { title: 'Launch page', projectId: project.id, assigneeIds: [ann.id] }, deps)).key;
  const spaceId = (await docs.createSpace(ws.id, { name: 'Handbook', description: '', memberIds: null }, deps)).id;
  docId = (await docs.createDoc(actor, { spaceId, title: 'Checklist', text: 'Check staging first', taskIds: [] }, deps)).id;
  meetingId = (await meetings.createMeeting(ws.id, {
    title: 'Planning', url: 'https://meet.example/1', folderId: null, projectId: project.id, createdBy: ann.id,
    startedAt: Date.UTC(2026, 10, 2, 9), endedAt: Date.UTC(2026, 10, 2, 10), status: 'done', participants: ['Ann'],
    summary: { overview: 'Plan', topics: [], decisions: [], actionItems: [0, 1, 2].map((i) => ({ text: `Write launch copy ${i}`, owner: 'Ann', due: '2026-11-09', taskId: null })) },
    transcript: [{ speaker: 'Ann', start: '00:00:02', end: '00:00:09', text: 'Launch on Monday' }],
  }, deps)).id;
  url = `${(await fx.start()).url}/mcp`;
}, 60_000);

afterAll(() => fx?.close());

/** Arguments that make each tool succeed on the seeded data. */
const calls = (agreement = 0): Array<[string, Record<string, unknown>]> => [
  ['whoami', {}], ['list_projects', {}], ['list_users', {}], ['search_tasks', {}], ['get_task', { task: taskKey }],
  ['show_board', { project: 'WEB' }],
  ['add_comment', { task: taskKey, text: 'On it' }], ['create_task', { title: 'New one', project: 'WEB' }],
  ['create_task_from_agreement', { meeting: meetingId, agreement }], ['update_task', { task: taskKey, priority: 'high' }],
  ['update_tasks', { items: [{ task: taskKey, priority: 'low' }] }],
  ['move_task', { task: taskKey, column: 'progress' }], ['log_time', { task: taskKey, minutes: 15 }], ['time_report', {}],
  ['list_docs', {}], ['get_doc', { doc: docId }], ['create_doc', { space: 'Handbook', title: 'Notes', content: 'Hello' }],
  ['update_doc', { doc: docId, content: 'Check staging first, then prod' }], ['list_meetings', {}], ['get_meeting', { meeting: meetingId }],
  ['list_activity', { project: 'WEB' }],
];

describe('every tool on one URL, in both eras', () => {
  it('covers every tool the server has', () => {
    expect(calls().map(([name]) => name).sort()).toEqual(TOOLS.map((t) => t.name).sort());
  });

  for (const [agreement, kind] of (['v1 (2025-11-25)', 'v2 pinned to 2026-07-28', 'v2 auto'] as const).entries()) {
    it(`${kind}: lists and calls every tool, reads a task and a page`, async () => {
      const client = kind.startsWith('v1') ? await fx.connect(token) : await fx.connectV2(token, kind.endsWith('auto') ? 'auto' : 'pinned');
      if (!kind.startsWith('v1')) expect((client as Awaited<ReturnType<McpFixture['connectV2']>>).getProtocolEra()).toBe('modern');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
      for (const [name, args] of calls(agreement)) {
        const result = await callTool(client, name, args);
        expect(result.isError, `${name}: ${result.text}`).toBeFalsy();
        expect(result.text.length, name).toBeGreaterThan(0);
      }
      const task = await client.readResource({ uri: `task://${taskKey}` });
      expect(JSON.stringify(task.contents)).toContain(taskKey);
      const page = await client.readResource({ uri: `doc://${docId}` });
      expect(JSON.stringify(page.contents)).toContain('staging');
    }, 60_000);
  }

  it('/mcp/readonly on 2026-07-28 lists only read tools and refuses a write as a tool error', async () => {
    const client = await fx.connectV2(token, 'pinned', '/mcp/readonly');
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    const refused = await callTool(client, 'create_task', { title: 'x', project: 'WEB' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('read-only');
  });
});

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A raw 2026-07-28 request: the envelope in `_meta` and the standard headers, each overridable. */
async function modern(method: string, params: Record<string, unknown> = {}, o: { meta?: unknown; headers?: Record<string, string>; id?: number } = {}) {
  const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}), ...o.headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: o.id ?? 41, method, params: { ...params, ...(o.meta === null ? {} : { _meta: o.meta ?? META }) } }),
  });
  const text = await res.text();
  const json = text.startsWith('event:') || text.startsWith('data:') ? JSON.parse(text.split('\n').find((l) => l.startsWith('data:'))!.slice(5)) : JSON.parse(text);
  return { status: res.status, body: json };
}

/** A raw 2025-era request (no envelope). */
async function legacy(method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 42, method, params }),
  });
  return { status: res.status, body: await res.json() };
}

describe('2026-07-28 on the wire', () => {
  it('server/discover names the versions and advertises no listChanged it would never send', async () => {
    const { status, body } = await modern('server/discover');
    expect(status).toBe(200);
    expect(body.id).toBe(41);
    expect(body.result.supportedVersions).toContain('2026-07-28');
    expect(body.result.capabilities.tools?.listChanged).toBeFalsy();
    expect(body.result.capabilities.resources?.listChanged).toBeFalsy();
  });

  it('initialize on 2025 advertises no listChanged either', async () => {
    const { body } = await legacy('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
    expect(body.result.protocolVersion).toBe('2025-11-25');
    expect(body.result.capabilities.tools?.listChanged).toBeFalsy();
    expect(body.result.capabilities.resources?.listChanged).toBeFalsy();
  });

  it('a missing or malformed _meta envelope is -32602 with the request id', async () => {
    const missing = await modern('tools/list', {}, { meta: null });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe(-32602);
    expect(missing.body.id).toBe(41);
    const malformed = await modern('tools/list', {}, { meta: { ...META, 'io.modelcontextprotocol/clientInfo': 'me' } });
    expect(malformed.body.error.code).toBe(-32602);
    expect(malformed.body.id).toBe(41);
  });

  it('an unknown revision is UnsupportedProtocolVersionError with the id: server/discover\'s list on 2026-07-28, every revision on 2025', async () => {
    for (const version of ['2031-01-01', '1999-01-01']) {
      const res = await modern('tools/list', {}, { meta: { ...META, 'io.modelcontextprotocol/protocolVersion': version }, headers: { 'mcp-protocol-version': version } });
      expect(res.status, version).toBe(400);
      expect(res.body.id, version).toBe(41);
      expect(res.body.error.code, version).toBe(-32022);
      expect(res.body.error.data, version).toEqual({ supported: ['2026-07-28'], requested: version });
    }
    const header = await legacy('tools/list', {}, { 'mcp-protocol-version': '1999-01-01' });
    expect(header.status).toBe(400);
    expect(header.body).toMatchObject({ id: 42, error: { code: -32022, data: { requested: '1999-01-01' } } });
    expect(header.body.error.data.supported).toEqual(expect.arrayContaining(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']));
  });

  it('Mcp-Method and Mcp-Name must match the body (-32020, with the id)', async () => {
    const method = await modern('tools/list', {}, { headers: { 'mcp-method': 'prompts/list' } });
    expect(method.status).toBe(400);
    expect(method.body).toMatchObject({ id: 41, error: { code: -32020 } });
    const name = await modern('tools/call', { name: 'whoami', arguments: {} }, { headers: { 'mcp-name': 'list_users' } });
    expect(name.status).toBe(400);
    expect(name.body).toMatchObject({ id: 41, error: { code: -32020 } });
    const absent = await modern('tools/call', { name: 'whoami', arguments: {} }, { headers: { 'mcp-method': '' } });
    expect(absent.body.error?.code).toBe(-32020);
  });

  it('lists and reads carry private cache hints; tools/list keeps one order', async () => {
    const first = await modern('tools/list');
    const second = await modern('tools/list');
    expect(first.body.result).toMatchObject({ cacheScope: 'private' });
    expect(typeof first.body.result.ttlMs).toBe('number');
    expect(second.body.result.tools.map((t: { name: string }) => t.name)).toEqual(first.body.result.tools.map((t: { name: string }) => t.name));
    const list = await modern('resources/list');
    expect(list.body.result).toMatchObject({ cacheScope: 'private' });
    const read = await modern('resources/read', { uri: `task://${taskKey}` });
    expect(read.body.result).toMatchObject({ cacheScope: 'private' });
    const legacyList = await legacy('tools/list');
    expect(legacyList.body.result.cacheScope).toBeUndefined();
  });

  it('a missing resource is -32602 with data.uri on 2026-07-28 and -32002 on 2025, with the id', async () => {
    const now = await modern('resources/read', { uri: 'task://NOPE-1' });
    expect(now.body).toMatchObject({ id: 41, error: { code: -32602, data: { uri: 'task://NOPE-1' } } });
    const before = await legacy('resources/read', { uri: 'task://NOPE-1' });
    expect(before.body).toMatchObject({ id: 42, error: { code: -32002, data: { uri: 'task://NOPE-1' } } });
  });

  it('an unknown method is an error carrying the id', async () => {
    const res = await modern('tasks/teleport');
    expect(res.body.id).toBe(41);
    expect(res.body.error.code).toBe(-32601);
  });

  // A result is settled as a JsonAnswer (edge/dispatch.ts) and written once: the same answer the SDK's Response.json made.
  it('a result is one JSON object with its length, as the SDK answers it; a refused request keeps its HTTP status', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`,
        'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'whoami',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'w-1', method: 'tools/call', params: { name: 'whoami', arguments: {}, _meta: META } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const text = await res.text();
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    const body = JSON.parse(text);
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 'w-1', result: { content: [{ type: 'text' }] } });
    expect(Object.keys(body).sort()).toEqual(['id', 'jsonrpc', 'result']);
    // An error the SDK answers before the handler (its ladder) keeps the status the SDK gives it.
    const refused = await modern('tools/call', { name: 'whoami', arguments: {} }, { headers: { 'mcp-name': 'search_tasks' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe(-32020);
  });
});

describe('the 2025 leg on the wire (stateless JSON exchange)', () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const call = (id: number, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method, params });

  it('answers one request with one JSON object, with no session and no SSE', async () => {
    const res = await post(call(7, 'tools/call', { name: 'whoami', arguments: {} }), { 'mcp-protocol-version': '2025-06-18' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = await res.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text' }] } });
    expect(body.result.isError).toBeFalsy();
  });

  it('answers a 2025-03-26 batch with every response in one array, and notifications alone with 202', async () => {
    const res = await post([call(1, 'tools/list'), { jsonrpc: '2.0', method: 'notifications/initialized' }, call(2, 'ping')], { 'mcp-protocol-version': '2025-03-26' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Array<{ id: number; result?: { tools?: unknown[] } }>;
    expect(body.map((m) => m.id)).toEqual([1, 2]);
    expect(body[0]!.result!.tools!.length).toBeGreaterThan(5);
    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(note.status).toBe(202);
    expect(await note.text()).toBe('');
  });

  it('refuses what the transport refuses: Accept without both types (406), not JSON (415), a batch over 100, a non-message', async () => {
    const accept = await post(call(3, 'ping'), { accept: 'application/json' });
    expect(accept.status).toBe(406);
    expect((await accept.json()).error.code).toBe(-32000);
    const media = await post('{"jsonrpc":"2.0","id":3,"method":"ping"}', { 'content-type': 'text/plain' });
    expect(media.status).toBe(415);
    const big = await post(Array.from({ length: 101 }, (_, i) => call(i, 'ping')));
    expect(big.status).toBe(400);
    expect((await big.json()).error.code).toBe(-32600);
    const junk = await post({ jsonrpc: '2.0', hello: 'world' });
    expect(junk.status).toBe(400);
    expect((await junk.json()).error.code).toBe(-32600);
    const notRpc = await post([{ jsonrpc: '2.0', id: 1, method: 'ping' }, { hello: 'world' }]);
    expect(notRpc.status).toBe(400);
    expect((await notRpc.json()).error.code).toBeLessThan(-32599);
  });
});
