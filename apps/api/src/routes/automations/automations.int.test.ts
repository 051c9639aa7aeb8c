import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { automations } from '@tt/domain';
import { startMcp, type McpServerHandle } from '@tt/mcp';
import { startHarness, type Harness, type TestWorkspace } from '../../test/harness.js';

// The in-process queue runs the worker's handlers in this process; drain() waits for all of them.
let h: Harness;
let ws: TestWorkspace;
let board: any;
type U = { id: string; login: string; token: string };
let alice: U, bob: U, carol: U;

async function person(login: string): Promise<U> {
  const u = await ws.user({ login });
  return { ...u, token: (await ws.key(u.id)).token };
}
const drain = () => h.runtime.jobs.drain();
const rule = (boardId: string, body: Record<string, unknown>) => h.op('POST', `/boards/${boardId}/automations`, { trigger: 'task_created', ...body });
const getTask = async (id: string) => (await h.call(ws.token, 'GET', `/tasks/${id}`)).body.data;
const comments = async (id: string) => (await h.call(ws.token, 'GET', `/tasks/${id}/comments`)).body.data;
const newBoard = async (name: string) => (await h.call(ws.token, 'POST', '/boards', { projectId: board.projectId, name, template: 'scrum' })).body.data;

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
  const project = (await h.call(ws.token, 'POST', '/projects', { name: 'Rules', key: 'RUL', template: 'scrum' })).body.data;
  board = project.boards[0];
  [alice, bob, carol] = (await Promise.all(['alice', 'bob', 'carol'].map(person))) as [U, U, U];
});
afterAll(() => h.close());

describe('POST /admin/v1/boards/{id}/automations', () => {
  it('creates a rule owned by the first admin unless ownerId is sent, and lists and removes rules', async () => {
    const b = await newBoard('Listing');
    const r = await rule(b.id, { actions: [{ type: 'set_priority', priority: 'low' }] });
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({
      id: expect.any(String), boardId: b.id, trigger: 'task_created', statusId: null, actions: [{ type: 'set_priority', priority: 'low' }],
      ownerId: ws.adminUser.id, createdAt: expect.any(Number),
    });
    const owned = await rule(b.id, { statusId: b.statuses[1].id, ownerId: bob.id, actions: [{ type: 'comment', text: 'hi' }] });
    expect(owned.body.data).toMatchObject({ ownerId: bob.id, statusId: b.statuses[1].id });
    expect((await h.op('GET', `/boards/${b.id}/automations`)).body.data.map((a: any) => a.id)).toEqual([r.body.data.id, owned.body.data.id]);
    expect((await h.op('DELETE', `/automations/${owned.body.data.id}`)).status).toBe(204);
    expect((await h.op('DELETE', `/automations/${owned.body.data.id}`)).status).toBe(404);
    expect((await h.op('GET', `/boards/${b.id}/automations`)).body.data).toHaveLength(1);
  });

  it('answers 400 naming the field, 404 for an unknown board, 422 for an owner who cannot see the board', async () => {
    const other = await newBoard('Other');
    const bad = async (body: Record<string, unknown>, field: string) => {
      const r = await h.op('POST', `/boards/${board.id}/automations`, body);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error.message).toContain(field);
    };
    const ok = [{ type: 'set_priority', priority: 'high' }];
    await bad({ trigger: 'task_updated', actions: ok }, 'body.trigger');
    await bad({ trigger: 'task_created', actions: [] }, 'body.actions');
    await bad({ trigger: 'task_created', actions: [{ type: 'explode' }] }, 'body.actions.0');
    await bad({ trigger: 'task_created', actions: [{ type: 'set_priority', priority: 'urgent' }] }, 'body.actions.0.priority');
    await bad({ trigger: 'task_created', statusId: other.statuses[0].id, actions: ok }, 'statusId');
    await bad({ trigger: 'task_created', actions: [{ type: 'move', statusId: other.statuses[0].id }] }, 'actions.0.statusId');
    await bad({ trigger: 'task_created', actions: [ok[0], { type: 'assign', userIds: ['usr_nope'] }] }, 'actions.1.userIds');
    await bad({ trigger: 'task_created', ownerId: 'usr_nope', actions: ok }, 'ownerId');
    await bad({ trigger: 'task_created', actions: ok, extra: true }, 'body.extra');
    expect((await rule('brd_nope', { actions: ok })).status).toBe(404);
    const closed = await newBoard('Closed');
    await h.op('PUT', `/boards/${closed.id}/access`, { memberIds: [alice.id] });
    const refused = await rule(closed.id, { ownerId: bob.id, actions: ok });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('rejected');
  });
});

describe('automations run on task creation', () => {
  it('applies every action once, as the owner, and the owner’s changes notify like a person’s', async () => {
    const b = await newBoard('Triage');
    const created = await rule(b.id, {
      ownerId: alice.id,
      actions: [
        { type: 'assign', userIds: [bob.id] },
        { type: 'add_labels', labels: ['triage', 'new'] },
        { type: 'set_priority', priority: 'high' },
        { type: 'move', statusId: b.statuses[2].id },
        { type: 'add_checklist', items: [{ text: 'Reproduce', done: false }, { text: 'Triage', done: true }] },
        { type: 'comment', text: `Thanks, @${carol.login} will look` },
      ],
    });
    expect(created.status).toBe(201);
    const t = (await h.call(carol.token, 'POST', '/tasks', { boardId: b.id, title: 'Bug', labels: ['new'], checklist: [{ text: 'Existing' }] })).body.data;
    await drain();
    const after = await getTask(t.id);
    expect(after).toMatchObject({ assigneeIds: [bob.id], assigneeId: bob.id, labels: ['new', 'triage'], priority: 'high', statusId: b.statuses[2].id });
    expect(after.checklist).toEqual([
      t.checklist[0],
      { id: expect.any(String), text: 'Reproduce', done: false },
      { id: expect.any(String), text: 'Triage', done: true },
    ]);
    const [c] = await comments(t.id);
    expect(c).toMatchObject({ authorId: alice.id, text: `Thanks, @${carol.login} will look`, mentionIds: [carol.id] });
    const inbox = async (u: U) => (await h.op('GET', `/users/${u.id}/notifications`)).body.data.filter((n: any) => n.taskId === t.id);
    expect((await inbox(bob)).map((n: any) => [n.kind, n.actorId])).toEqual([['comment', alice.id], ['assigned', alice.id]]);
    expect((await inbox(carol)).map((n: any) => [n.kind, n.actorId, n.commentId])).toEqual([['mention', alice.id, c.id]]);
    expect(await inbox(alice)).toEqual([]);

    // A redelivered job finds the rule already applied and changes nothing.
    const payload = { workspaceId: ws.id, taskId: t.id, boardId: b.id, statusId: b.statuses[0].id, actorId: carol.id };
    expect(await automations.runTaskCreated(payload, h.runtime.deps)).toEqual([{ ruleId: created.body.data.id, result: 'already_applied' }]);
    await drain();
    expect(await comments(t.id)).toHaveLength(1);
    expect((await getTask(t.id)).checklist).toHaveLength(3);
  });

  it('never loops: the automation’s own move and comment queue no automation job', async () => {
    const b = await newBoard('Loop');
    await rule(b.id, { actions: [{ type: 'move', statusId: b.statuses[1].id }, { type: 'comment', text: 'moved' }] });
    await rule(b.id, { statusId: b.statuses[1].id, actions: [{ type: 'comment', text: 'never: the task was created in the first column' }] });
    const t = (await h.call(alice.token, 'POST', '/tasks', { boardId: b.id, title: 'Once' })).body.data;
    await drain();
    const jobs = await h.runtime.db('outbox').whereRaw("payload->>'taskId' = ?", [t.id]).select('name');
    expect(jobs.map((j: any) => j.name).sort()).toEqual(['automations.task_created', 'notify.comment']);
    expect((await comments(t.id)).map((c: any) => c.text)).toEqual(['moved']);
    expect((await getTask(t.id)).statusId).toBe(b.statuses[1].id);
  });

  it('runs only rules of the column the task was created in', async () => {
    const b = await newBoard('Columns');
    await rule(b.id, { statusId: b.statuses[1].id, actions: [{ type: 'add_labels', labels: ['second'] }] });
    await rule(b.id, { actions: [{ type: 'add_labels', labels: ['any'] }] });
    const first = (await h.call(alice.token, 'POST', '/tasks', { boardId: b.id, title: 'First' })).body.data;
    const second = (await h.call(alice.token, 'POST', '/tasks', { boardId: b.id, statusId: b.statuses[1].id, title: 'Second' })).body.data;
    await drain();
    expect((await getTask(first.id)).labels).toEqual(['any']);
    expect((await getTask(second.id)).labels).toEqual(['second', 'any']);
  });

  it('skips archived tasks and owners who were deleted', async () => {
    const b = await newBoard('Skips');
    const r = (await rule(b.id, { statusId: b.statuses[1].id, actions: [{ type: 'add_labels', labels: ['x'] }] })).body.data;
    // Created in another column so no rule runs; then archived and its job replayed as if made in the rule's column.
    const t = (await h.call(alice.token, 'POST', '/tasks', { boardId: b.id, title: 'Archived' })).body.data;
    await drain();
    expect((await h.op('POST', `/tasks/${t.id}/archive`)).status).toBe(200);
    const payload = { workspaceId: ws.id, taskId: t.id, boardId: b.id, statusId: b.statuses[1].id, actorId: alice.id };
    expect(await automations.runTaskCreated(payload, h.runtime.deps)).toEqual([{ ruleId: r.id, result: 'skipped', reason: 'task archived' }]);
    expect((await h.call(ws.token, 'GET', `/tasks/${t.id}`)).body.data.labels).toEqual([]);

    const owner = await person('owner');
    const b2 = await newBoard('Orphan');
    await rule(b2.id, { ownerId: owner.id, actions: [{ type: 'add_labels', labels: ['orphan'] }] });
    expect((await h.op('DELETE', `/users/${owner.id}`)).status).toBe(204);
    const t2 = (await h.call(alice.token, 'POST', '/tasks', { boardId: b2.id, title: 'No owner' })).body.data;
    await drain();
    expect((await getTask(t2.id)).labels).toEqual([]);
  });

  it('runs on tasks created through MCP', async () => {
    const b = await newBoard('Agents');
    await rule(b.id, { actions: [{ type: 'add_labels', labels: ['from-rule'] }, { type: 'assign', userIds: [bob.id] }] });
    const mcp: McpServerHandle = await startMcp({ port: 0, host: '127.0.0.1', logLevel: 'silent' }, h.runtime);
    const client = new Client({ name: 'automation-test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${alice.token}` } } }));
      const res: any = await client.callTool({ name: 'create_task', arguments: { title: 'Agent task', board: b.id } });
      expect(res.isError ?? false).toBe(false);
      await drain();
      const listed = (await h.call(ws.token, 'GET', `/tasks?boardId=${b.id}`)).body.data;
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ title: 'Agent task', labels: ['from-rule'], assigneeIds: [bob.id] });
    } finally {
      await client.close();
      await mcp.stop();
    }
  });
});
