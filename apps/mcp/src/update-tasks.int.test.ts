import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Actor, keys, people, projects, type ProjectWithBoards, type Scope, SCOPES, tasks } from '@tt/domain';
import { callTool as call, mcpFixture, type McpFixture } from './test/fixture.js';

// update_tasks: update_task for many tasks, answered item by item like POST /v1/tasks/bulk.
describe('update_tasks', () => {
  let fx: McpFixture;
  let actor: Actor;
  let project: ProjectWithBoards;
  let token: string;
  let restricted: string;
  let readOnly: string;
  let bobId: string;
  let url: string;

  beforeAll(async () => {
    fx = await mcpFixture();
    const deps = fx.runtime.deps;
    const ws = await people.createWorkspace({ name: 'Bulk', plan: 'business', timezone: 'UTC' }, deps);
    const ann = await people.createUser(ws.id, { name: 'Ann', login: 'ann', role: 'Lead', isAdmin: true }, deps);
    bobId = (await people.createUser(ws.id, { name: 'Bob Builder', login: 'bob', role: 'Dev', isAdmin: false }, deps)).id;
    const key = await keys.issueKey(ann.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps);
    token = key.token;
    actor = {
      workspace: { id: ws.id, name: ws.name, plan: ws.plan, timezone: ws.timezone, memberKeysEnabled: true },
      user: { ...ann, workspaceId: ws.id, deletedAt: null },
      key: { id: key.id, scopes: key.scopes as Scope[], projectIds: null },
    };
    project = await projects.createProject(actor, { name: 'Web', key: 'WEB', template: 'scrum' }, deps);
    const other = await projects.createProject(actor, { name: 'Ops', key: 'OPS', template: 'simple' }, deps);
    restricted = (await keys.issueKey(ann.id, { scopes: [...SCOPES], projectIds: [other.id], expiresAt: null, allowedIps: [] }, deps)).token;
    readOnly = (await keys.issueKey(ann.id, { scopes: ['tasks:read'], projectIds: null, expiresAt: null, allowedIps: [] }, deps)).token;
    url = `${(await fx.start()).url}/mcp`;
  }, 60_000);
  afterAll(() => fx?.close());

  const create = (title: string) => tasks.createTask(actor, { title, boardId: project.boards[0]!.id }, fx.runtime.deps);
  const get = (ref: string) => tasks.getTask(actor, ref, fx.runtime.deps);
  const entries = async (taskId: string) => Number((await fx.runtime.db('activity').where({ task_id: taskId }).count({ n: '*' }).first())!.n);

  it('applies update_task arguments plus column item by item, and answers each in structured results', async () => {
    const client = await fx.connect(token);
    const [a, b] = [await create('bulk a'), await create('bulk b')];
    const before = [await entries(a.id), await entries(b.id)];
    const r = await call(client, 'update_tasks', {
      items: [
        { task: a.key, priority: 'high', assignees: ['bob'], labels: ['mcp'] },
        { task: b.id, column: 'progress', title: 'bulk b moved' },
        { task: 'WEB-999', title: 'missing' },
        { task: a.key, priority: 'urgent' },
        { task: b.key, assignees: ['nobody-at-all'] },
        { task: a.key },
      ],
    });
    expect(r.isError).toBeFalsy();
    const results = r.structuredContent!.results as Array<{ task: string; status: number; data?: any; error?: any }>;
    expect(results.map((x) => [x.task, x.status])).toEqual([[a.key, 200], [b.key, 200], ['WEB-999', 404], [a.key, 400], [b.key, 400], [a.key, 400]]);
    expect(results[0]!.data).toMatchObject({ priority: 'high', assigneeIds: [bobId], labels: ['mcp'] });
    expect(results[3]!.error.message).toMatch(/^priority: /);
    expect(results[4]!.error.message).toMatch(/^assignees: /);
    // As update_task alone answers the same item.
    expect((await call(client, 'update_task', { task: b.key, assignees: ['nobody-at-all'] })).text).toMatch(/^invalid_request: assignees: /);
    expect(results[5]!.error.message).toMatch(/nothing to change/);
    expect(r.text).toMatch(/^Updated 2 of 6 tasks\./);
    expect(r.text).toContain(`- ${b.key}: updated`);
    expect(r.text).toContain('- WEB-999: 404 not_found');
    expect(await get(b.key)).toMatchObject({ title: 'bulk b moved', status: { category: 'progress' } });
    // One task.updated entry for a; for b one task.updated and one task.moved, as update_task and move_task make them.
    expect([await entries(a.id), await entries(b.id)]).toEqual([before[0]! + 1, before[1]! + 2]);
  });

  it('atomic: nothing applied when an item fails; the error names items[i]', async () => {
    const client = await fx.connect(token);
    const a = await create('atomic');
    const r = await call(client, 'update_tasks', { atomic: true, items: [{ task: a.key, title: 'never' }, { task: a.key, column: 'Nowhere' }] });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^invalid_request: items\[1\]\.column: no column Nowhere/);
    expect((await get(a.key)).title).toBe('atomic');
    const ok = await call(client, 'update_tasks', { atomic: true, items: [{ task: a.key, title: 'done' }, { task: a.key, column: 'done' }] });
    expect(ok.isError).toBeFalsy();
    expect(await get(a.key)).toMatchObject({ title: 'done', status: { category: 'done' } });
  });

  it('isError only when no item was applied; a restricted key gets 404 for tasks outside its projects', async () => {
    const a = await create('hidden from the ops key');
    const r = await call(await fx.connect(restricted), 'update_tasks', { items: [{ task: a.key, title: 'x' }] });
    expect(r.isError).toBe(true);
    expect((r.structuredContent!.results as any[])[0]).toMatchObject({ task: a.key, status: 404, error: { code: 'not_found' } });
    expect((await get(a.key)).title).toBe('hidden from the ops key');
    // Without tasks:write the tool is not listed, and a call says which right is missing.
    const ro = await fx.connect(readOnly);
    expect((await ro.listTools()).tools.map((t) => t.name)).not.toContain('update_tasks');
    expect((await call(ro, 'update_tasks', { items: [{ task: a.key, title: 'x' }] })).text).toMatch(/^insufficient_scope/);
  });

  it('spends one point of the rate limit per item, as REST does', async () => {
    const a = await create('points');
    const send = (args: Record<string, unknown>) => fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'update_tasks', arguments: args } }),
    });
    const first = await send({ items: [{ task: a.key, priority: 'low' }] });
    expect(first.status).toBe(200);
    const left = Number(first.headers.get('x-ratelimit-remaining'));
    const second = await send({ items: Array.from({ length: 7 }, (_, i) => ({ task: a.key, title: `points ${i}` })) });
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(left - 7);
  });

  it('refuses more than 100 items as a whole', async () => {
    const a = await create('limit');
    const r = await call(await fx.connect(token), 'update_tasks', { items: Array.from({ length: 101 }, () => ({ task: a.key, title: 'x' })) });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/items/);
  });
});
