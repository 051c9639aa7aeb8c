import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWorkspace } from '../../test/harness.js';

let h: Harness;
let ws: TestWorkspace;
let project: any;
let other: any;
let board: any;

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
  project = (await h.call(ws.token, 'POST', '/projects', { name: 'Web', key: 'WEB' })).body.data;
  other = (await h.call(ws.token, 'POST', '/projects', { name: 'Ops', key: 'OPS' })).body.data;
  board = (await h.call(ws.token, 'GET', `/boards?projectId=${project.id}`)).body.data[0];
});
afterAll(() => h.close());

const history = async (ref: string, token = ws.token) => {
  const r = await h.call(token, 'GET', `/tasks/${ref}/activity?limit=100`);
  expect(r.status, r.text).toBe(200);
  return r.body.data as any[];
};
const newTask = async (body: Record<string, unknown> = {}, token = ws.token) => {
  const r = await h.call(token, 'POST', '/tasks', { projectId: project.id, title: 'First title', ...body }, {});
  expect(r.status, r.text).toBe(201);
  return r.body.data;
};

describe('GET /tasks/{ref}/activity', () => {
  it('records creation and every field changed, with from and to, newest first, through REST and the key', async () => {
    const helper = await ws.user({ login: 'helper' });
    const parent = await newTask({ title: 'Parent' });
    const t = await newTask({ description: 'Some **long** text', labels: ['ui'], priority: 'high' });
    const created = await history(t.key);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      action: 'task.created', task: { id: t.id, key: t.key }, doc: null,
      actor: { id: ws.adminUser.id, login: ws.adminUser.login }, via: { channel: 'rest', keyId: ws.keyId, clientName: null, automationId: null },
    });
    expect(created[0].changes).toEqual(expect.arrayContaining([
      { field: 'title', from: null, to: 'First title' }, { field: 'labels', from: null, to: ['ui'] },
      { field: 'description', from: null, to: { characters: expect.any(Number) } },
    ]));

    const patch = {
      title: 'Second title', description: 'Other words entirely', priority: 'highest', type: 'bug', dueDate: '2026-12-01',
      assigneeIds: [helper.id], labels: ['ui', 'api'], checklist: [{ text: 'write it', done: false }], parentId: parent.id,
    };
    const r = await h.call(ws.token, 'PATCH', `/tasks/${t.key}`, patch);
    expect(r.status, r.text).toBe(200);
    const [updated] = await history(t.key);
    expect(updated.action).toBe('task.updated');
    const byField = Object.fromEntries(updated.changes.map((c: any) => [c.field, c]));
    expect(byField.title).toEqual({ field: 'title', from: 'First title', to: 'Second title' });
    expect(byField.priority).toEqual({ field: 'priority', from: 'high', to: 'highest' });
    expect(byField.type).toEqual({ field: 'type', from: 'task', to: 'bug' });
    expect(byField.dueDate).toEqual({ field: 'dueDate', from: null, to: '2026-12-01' });
    expect(byField.assigneeIds).toEqual({ field: 'assigneeIds', from: [], to: [helper.id] });
    expect(byField.labels).toEqual({ field: 'labels', from: ['ui'], to: ['ui', 'api'] });
    expect(byField.checklist).toEqual({ field: 'checklist', from: [], to: [{ text: 'write it', done: false }] });
    expect(byField.parentId).toEqual({ field: 'parentId', from: null, to: parent.id });
    // A marker, never the text itself.
    expect(byField.description.to).toEqual({ characters: 'Other words entirely'.length });
    expect(JSON.stringify(updated)).not.toContain('Other words');

    // Nothing changed: no entry.
    await h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { title: 'Second title' });
    expect(await history(t.key)).toHaveLength(2);
  });

  it('records moves, comments, time, archive and restore (operator), linked pages and a task from a meeting agreement', async () => {
    const t = await newTask();
    const done = board.statuses.find((s: any) => s.category === 'done');
    expect((await h.call(ws.token, 'POST', `/tasks/${t.key}/move`, { statusId: done.id })).status).toBeLessThan(300);
    expect((await h.call(ws.token, 'POST', `/tasks/${t.key}/comments`, { text: 'Looks good' })).status).toBe(201);
    expect((await h.call(ws.token, 'POST', `/tasks/${t.key}/time`, { minutes: 30 })).status).toBe(201);
    expect((await h.op('POST', `/tasks/${t.id}/archive`)).status).toBe(200);
    expect((await h.op('POST', `/tasks/${t.id}/restore`)).status).toBe(200);
    const space = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Specs', memberIds: null })).body.data;
    const doc = (await h.call(ws.token, 'POST', '/docs', { spaceId: space.id, title: 'Spec', content: 'x', taskIds: [t.key] })).body.data;
    expect((await h.call(ws.token, 'PATCH', `/docs/${doc.id}`, { taskIds: [] })).status).toBe(200);

    const entries = await history(t.key);
    expect(entries.map((e) => e.action)).toEqual([
      'task.updated', 'task.updated', 'task.restored', 'task.archived', 'time.logged', 'comment.created', 'task.moved', 'task.created',
    ]);
    const [unlinked, linked, restored, archived, logged, commented, moved] = entries;
    expect(moved.changes).toEqual([{ field: 'status', from: { id: t.statusId, name: t.status.name }, to: { id: done.id, name: done.name } }]);
    expect(commented.changes[0]).toMatchObject({ field: 'comment', to: { text: { characters: 'Looks good'.length } } });
    expect(logged.changes[0]).toEqual({ field: 'timeSpentSeconds', from: 0, to: 1800 });
    for (const e of [archived, restored]) expect(e).toMatchObject({ actor: null, via: { channel: 'operator', keyId: null } });
    expect(linked.changes).toEqual([{ field: 'docIds', from: null, to: doc.id }]);
    expect(unlinked.changes).toEqual([{ field: 'docIds', from: doc.id, to: null }]);

    const feed = (await h.call(ws.token, 'GET', `/activity?limit=500`)).body.data as any[];
    const pageEntries = feed.filter((e) => e.doc?.id === doc.id);
    expect(pageEntries.map((e) => e.action)).toEqual(['doc.updated', 'doc.created']);
    expect(pageEntries[1].changes).toEqual(expect.arrayContaining([{ field: 'title', from: null, to: 'Spec' }]));

    const meeting = (await h.op('POST', `/workspaces/${ws.id}/meetings`, {
      title: 'Planning', createdBy: ws.adminUser.id, startedAt: Date.now(), projectId: project.id, summary: { actionItems: [{ text: 'Ship the thing' }] },
    })).body.data;
    const made = await h.call(ws.token, 'POST', `/meetings/${meeting.id}/action-items/0/task`, {});
    expect(made.status, made.text).toBe(201);
    const key = made.body.data.key;
    expect((await history(key)).map((e) => e.action)).toEqual(['task.created_from_agreement', 'task.created']);
    expect((await history(key))[0].changes[0].to).toMatchObject({ id: meeting.id, agreement: 0 });
  });

  it('pages newest first with limit and cursor, and answers 404 for a task the key cannot see', async () => {
    const t = await newTask();
    for (const p of ['low', 'lowest', 'high', 'highest']) await h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { priority: p });
    const first = await h.call(ws.token, 'GET', `/tasks/${t.key}/activity?limit=2`);
    expect(first.body.total).toBe(5);
    expect(first.body.data.map((e: any) => e.changes[0].to)).toEqual(['highest', 'high']);
    const second = await h.call(ws.token, 'GET', `/tasks/${t.key}/activity?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((e: any) => e.changes[0].to)).toEqual(['lowest', 'low']);
    const third = await h.call(ws.token, 'GET', `/tasks/${t.key}/activity?limit=2&cursor=${second.body.nextCursor}`);
    expect(third.body.data.map((e: any) => e.action)).toEqual(['task.created']);
    expect(third.body.nextCursor).toBeNull();
    expect((await h.call(ws.token, 'GET', `/tasks/${t.key}/activity?cursor=broken`)).body.error).toMatchObject({ code: 'invalid_request' });

    const member = await ws.user();
    const restricted = await ws.key(member.id, { projectIds: [other.id] });
    expect((await h.call(restricted.token, 'GET', `/tasks/${t.key}/activity`)).status).toBe(404);
    const noRead = await ws.key(member.id, { scopes: ['time:read'] });
    expect((await h.call(noRead.token, 'GET', `/tasks/${t.key}/activity`)).body.error.code).toBe('insufficient_scope');
  });
});

describe('GET /activity', () => {
  it('filters by period, project, person and task, and reads a date-time without offset in the workspace time zone', async () => {
    const member = await ws.user({ login: 'writer' });
    const memberKey = await ws.key(member.id);
    const start = Date.now();
    const a = await newTask({ title: 'By the member' }, memberKey.token);
    const b = await h.call(ws.token, 'POST', '/tasks', { projectId: other.id, title: 'In ops' });
    const byMember = (await h.call(ws.token, 'GET', `/activity?actorId=writer&since=${start}`)).body;
    expect(byMember.data.map((e: any) => e.task.key)).toEqual([a.key]);
    expect(byMember.data[0].actor).toEqual({ id: member.id, name: expect.any(String), login: 'writer' });
    expect(byMember.data[0].via.keyId).toBe(memberKey.id);
    const ops = (await h.call(ws.token, 'GET', `/activity?projectId=OPS&since=${start}`)).body.data;
    expect(ops.map((e: any) => e.task.key)).toEqual([b.body.data.key]);
    const one = (await h.call(ws.token, 'GET', `/activity?taskId=${a.key}`)).body.data;
    expect(one.every((e: any) => e.task.id === a.id)).toBe(true);
    expect((await h.call(ws.token, 'GET', `/activity?until=${start}&taskId=${a.key}`)).body.data).toEqual([]);

    // Without an offset, a date-time is Moscow wall-clock time (the workspace's zone), not the server's (UTC here).
    const moscow = (ms: number) => new Date(ms + 3 * 3_600_000).toISOString().slice(0, 19);
    const justBefore = moscow(start - 60_000);
    const soon = moscow(Date.now() + 60_000);
    expect((await h.call(ws.token, 'GET', `/activity?taskId=${a.key}&since=${justBefore}`)).body.total).toBe(1);
    expect((await h.call(ws.token, 'GET', `/activity?taskId=${a.key}&since=${soon}`)).body.total).toBe(0);
    expect((await h.call(ws.token, 'GET', `/activity?taskId=${a.key}&until=${soon}`)).body.total).toBe(1);
    expect((await h.call(ws.token, 'GET', `/tasks?projectId=${project.id}&updatedSince=${justBefore}`)).body.data.map((t: any) => t.key)).toContain(a.key);
    expect((await h.call(ws.token, 'GET', `/tasks?projectId=${project.id}&updatedSince=${soon}`)).body.total).toBe(0);
    expect((await h.call(ws.token, 'GET', '/activity?since=yesterday')).body.error).toMatchObject({ code: 'invalid_request' });
    expect((await h.call(ws.token, 'GET', '/activity?since=yesterday')).body.error.message).toContain('since');
    expect((await h.call(ws.token, 'GET', '/activity?projectId=NOPE')).status).toBe(404);
    expect((await h.call(ws.token, 'GET', '/activity?actorId=nobody-here')).status).toBe(400);
  });

  it("shows a restricted key only its projects' entries, none of a closed board or space", async () => {
    const member = await ws.user();
    const restricted = await ws.key(member.id, { projectIds: [other.id] });
    const opsTask = (await h.call(ws.token, 'POST', '/tasks', { projectId: other.id, title: 'Visible to the restricted key' })).body.data;
    await newTask({ title: 'Not for the restricted key' });
    const seen = (await h.call(restricted.token, 'GET', '/activity?limit=500')).body.data as any[];
    expect(seen.some((e) => e.task?.id === opsTask.id)).toBe(true);
    expect(seen.filter((e) => e.task).every((e) => e.task.key.startsWith('OPS-'))).toBe(true);

    // A closed board of OPS: its tasks' entries disappear for non-members, also those written before it closed.
    const closed = (await h.call(ws.token, 'POST', '/boards', { projectId: other.id, name: 'Secret' })).body.data;
    const hidden = (await h.call(ws.token, 'POST', '/tasks', { boardId: closed.id, title: 'Secret work' })).body.data;
    expect((await h.call(restricted.token, 'GET', '/activity?limit=500')).body.data.some((e: any) => e.task?.id === hidden.id)).toBe(true);
    await h.op('PUT', `/boards/${closed.id}/access`, { memberIds: [ws.adminUser.id] });
    const after = (await h.call(restricted.token, 'GET', `/activity?limit=500`)).body;
    expect(after.data.some((e: any) => e.task?.id === hidden.id)).toBe(false);
    expect((await h.call(restricted.token, 'GET', `/activity?taskId=${hidden.key}`)).body).toMatchObject({ data: [], total: 0 });
    expect((await h.call(ws.token, 'GET', `/activity?taskId=${hidden.key}`)).body.total).toBe(1);

    // A task moved from a closed board to an open one: its earlier entries follow it.
    const open = board.statuses[0];
    const openBoard = (await h.call(ws.token, 'GET', `/boards?projectId=${other.id}`)).body.data.find((x: any) => x.id !== closed.id);
    expect((await h.call(ws.token, 'POST', `/tasks/${hidden.key}/move`, { boardId: openBoard.id, statusId: openBoard.statuses[0].id })).status).toBeLessThan(300);
    expect((await h.call(restricted.token, 'GET', `/activity?taskId=${hidden.key}`)).body.total).toBe(2);
    expect(open).toBeDefined();

    const space = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Board room', memberIds: [ws.adminUser.id] })).body.data;
    const page = (await h.call(ws.token, 'POST', '/docs', { spaceId: space.id, title: 'Salaries', content: 'x' })).body.data;
    expect((await h.call(restricted.token, 'GET', '/activity?limit=500')).body.data.some((e: any) => e.doc?.id === page.id)).toBe(false);
    expect((await h.call(ws.token, 'GET', '/activity?limit=500')).body.data.some((e: any) => e.doc?.id === page.id)).toBe(true);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await h.call(null, 'GET', '/openapi.json')).body;
    expect(doc.paths['/v1/tasks/{ref}/activity'].get).toBeDefined();
    expect(doc.paths['/v1/activity'].get.parameters.map((p: any) => p.name)).toEqual(
      expect.arrayContaining(['since', 'until', 'projectId', 'actorId', 'taskId', 'limit', 'cursor']),
    );
  });
});
