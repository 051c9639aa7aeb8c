import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleJob } from '@tt/jobs';
import { startHarness, type Harness, type TestWorkspace } from '../../test/harness.js';

// Without REDIS_URL the runtime relays the outbox to the in-process queue and runs the worker's handlers here;
// drain() waits until every outbox row has been handled, so no test depends on timing.
let h: Harness;
let ws: TestWorkspace;
let board: any;
type U = { id: string; login: string; token: string };
let alice: U, bob: U, carol: U, dave: U, erin: U;

async function person(login: string): Promise<U> {
  const u = await ws.user({ login });
  return { ...u, token: (await ws.key(u.id)).token };
}

const drain = () => h.runtime.jobs.drain();
const inbox = async (u: U, query = '') => {
  const r = await h.call(u.token, 'GET', `/notifications${query}`);
  expect(r.status).toBe(200);
  return r.body;
};
const kinds = async (u: U, taskId: string) =>
  (await inbox(u)).data.filter((n: any) => n.taskId === taskId).map((n: any) => n.kind);
const task = async (by: U, body: Record<string, unknown>) => {
  const r = await h.call(by.token, 'POST', '/tasks', { boardId: board.id, ...body });
  expect(r.status).toBe(201);
  return r.body.data;
};
const comment = async (by: U, taskId: string, body: Record<string, unknown>) => {
  const r = await h.call(by.token, 'POST', `/tasks/${taskId}/comments`, body);
  expect(r.status).toBe(201);
  return r.body.data;
};

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
  const project = (await h.call(ws.token, 'POST', '/projects', { name: 'Inbox', key: 'INB' })).body.data;
  board = project.boards[0];
  [alice, bob, carol, dave, erin] = await Promise.all(['alice', 'bob', 'carol', 'dave', 'erin'].map(person)) as [U, U, U, U, U];
});
afterAll(() => h.close());

describe('notifications from tasks and comments', () => {
  it('a new task notifies its assignees, never its author', async () => {
    const t = await task(alice, { title: 'Assigned', assigneeIds: [bob.id, carol.id, alice.id] });
    await drain();
    const [n] = (await inbox(bob)).data.filter((x: any) => x.taskId === t.id);
    expect(n).toEqual({ id: expect.any(String), kind: 'assigned', taskId: t.id, commentId: null, actorId: alice.id, createdAt: expect.any(Number), read: false });
    // The event time is when the outbox row was written, in the task's transaction.
    expect(n.createdAt).toBeGreaterThanOrEqual(t.createdAt);
    expect(n.createdAt).toBeLessThanOrEqual(Date.now());
    expect(await kinds(carol, t.id)).toEqual(['assigned']);
    expect(await kinds(alice, t.id)).toEqual([]);
  });

  it('a comment notifies author, assignees, mentioned and answered people once each, the most specific kind winning', async () => {
    const t = await task(alice, { title: 'Discussed', assigneeIds: [bob.id, carol.id] });
    const first = await comment(dave, t.id, { text: 'Looking at it' });
    await drain();
    expect(await kinds(alice, t.id)).toEqual(['comment']);
    expect(await kinds(bob, t.id)).toEqual(['comment', 'assigned']); // newest first
    expect(await kinds(dave, t.id)).toEqual([]);

    // bob answers dave, mentioning carol (an assignee), dave (answered) and erin (outsider): reply > mention > comment.
    const second = await comment(bob, t.id, { text: `@${carol.login} @${dave.login} and @${erin.login}, see above`, replyTo: first.id });
    await drain();
    const about = async (u: U) => (await inbox(u)).data.filter((n: any) => n.commentId === second.id).map((n: any) => n.kind);
    expect(await about(dave)).toEqual(['reply']);
    expect(await about(carol)).toEqual(['mention']);
    expect(await about(erin)).toEqual(['mention']);
    expect(await about(alice)).toEqual(['comment']);
    expect(await about(bob)).toEqual([]);
    const [toDave] = (await inbox(dave)).data.filter((n: any) => n.commentId === second.id);
    expect(toDave).toMatchObject({ taskId: t.id, actorId: bob.id, createdAt: second.createdAt, read: false });
  });

  it('handlers are idempotent: the same job run again adds nothing', async () => {
    const t = await task(alice, { title: 'Twice', assigneeIds: [bob.id] });
    const c = await comment(carol, t.id, { text: `ping @${dave.login}` });
    await drain();
    const before = (await inbox(bob)).total + (await inbox(dave)).total;
    const meta = { timestamp: Date.now(), attempt: 2 };
    const again = await handleJob(
      { id: 'outbox-999999', name: 'notify.comment', payload: { workspaceId: ws.id, taskId: t.id, commentId: c.id, actorId: carol.id }, ...meta },
      h.runtime.deps,
    );
    expect(again).toEqual({ delivered: 0 });
    const assigned = { id: 'outbox-1000000', name: 'notify.assigned', payload: { workspaceId: ws.id, taskId: t.id, actorId: alice.id, userIds: [erin.id] }, ...meta };
    expect(await handleJob(assigned, h.runtime.deps)).toEqual({ delivered: 1 });
    expect(await handleJob(assigned, h.runtime.deps)).toEqual({ delivered: 0 });
    expect((await inbox(bob)).total + (await inbox(dave)).total).toBe(before);
    expect(await kinds(erin, t.id)).toEqual(['assigned']);
  });

  it('a payload that fails its schema is refused without retries', async () => {
    const bad = handleJob({ id: 'x', name: 'notify.comment', payload: { taskId: 1 }, timestamp: 0, attempt: 1 }, h.runtime.deps);
    await expect(bad).rejects.toMatchObject({ name: 'UnrecoverableError', message: expect.stringContaining('commentId') });
    await expect(handleJob({ id: 'y', name: 'nope', payload: {}, timestamp: 0, attempt: 1 }, h.runtime.deps)).rejects.toMatchObject({ name: 'UnrecoverableError' });
  });

  it('deleted users and people outside a closed board hear nothing', async () => {
    const gone = await person('gone');
    const closed = (await h.call(ws.token, 'POST', '/boards', { projectId: board.projectId, name: 'Closed' })).body.data;
    expect((await h.op('PUT', `/boards/${closed.id}/access`, { memberIds: [alice.id, ws.adminUser.id] })).status).toBe(200);
    const t = (await h.call(alice.token, 'POST', '/tasks', { boardId: closed.id, title: 'Secret' })).body.data;
    await comment(alice, t.id, { text: `@${bob.login} look` });
    await drain();
    expect((await h.op('GET', `/users/${bob.id}/notifications`)).body.data.filter((n: any) => n.taskId === t.id)).toEqual([]);
    // A user deleted between the assignment and its job hears nothing.
    const open = await task(alice, { title: 'Open' });
    expect((await h.op('DELETE', `/users/${gone.id}`)).status).toBe(204);
    const job = { id: 'outbox-2000000', name: 'notify.assigned', timestamp: Date.now(), attempt: 1 };
    const payload = { workspaceId: ws.id, taskId: open.id, actorId: alice.id, userIds: [gone.id, erin.id] };
    expect(await handleJob({ ...job, payload }, h.runtime.deps)).toEqual({ delivered: 1 });
    expect((await h.op('GET', `/users/${gone.id}/notifications`)).body.data.filter((n: any) => n.taskId === open.id)).toEqual([]);
  });

  it('a job about a task since deleted, or naming another workspace, delivers nothing and does not fail', async () => {
    const doomed = await task(alice, { title: 'Doomed' });
    await drain();
    expect((await h.call(alice.token, 'DELETE', `/tasks/${doomed.id}`)).status).toBe(204);
    const job = { name: 'notify.assigned', timestamp: Date.now(), attempt: 1 };
    const deleted = { workspaceId: ws.id, taskId: doomed.id, actorId: alice.id, userIds: [bob.id] };
    expect(await handleJob({ ...job, id: 'outbox-3000000', payload: deleted }, h.runtime.deps)).toEqual({ delivered: 0 });
    // Another workspace's task, or another workspace's user, is never matched by id alone.
    const other = await h.workspace();
    const outsider = await other.user({ login: 'outsider' });
    const live = await task(alice, { title: 'Live' });
    await drain();
    const foreignTask = { workspaceId: other.id, taskId: live.id, actorId: alice.id, userIds: [outsider.id] };
    expect(await handleJob({ ...job, id: 'outbox-3000001', payload: foreignTask }, h.runtime.deps)).toEqual({ delivered: 0 });
    const foreignUser = { workspaceId: ws.id, taskId: live.id, actorId: alice.id, userIds: [outsider.id, carol.id] };
    expect(await handleJob({ ...job, id: 'outbox-3000002', payload: foreignUser }, h.runtime.deps)).toEqual({ delivered: 1 });
    expect(await kinds(carol, live.id)).toEqual(['assigned']);
  });

  it('jobs run at once are written together, each told its own count, and a failing one fails alone', async () => {
    const [one, two] = [await task(alice, { title: 'Together 1' }), await task(alice, { title: 'Together 2' })];
    await drain();
    const job = (id: string, taskId: string, userIds: string[], actorId = alice.id) =>
      handleJob({ id, name: 'notify.assigned', timestamp: Date.now(), attempt: 1, payload: { workspaceId: ws.id, taskId, actorId, userIds } }, h.runtime.deps);
    const results = await Promise.allSettled([
      job('outbox-4000000', one.id, [bob.id, carol.id]),
      job('outbox-4000001', two.id, [dave.id]),
      // An actor that is no user breaks its row's foreign key: that job fails (and is retried by the queue).
      job('outbox-4000002', two.id, [erin.id], 'usr_nobody'),
      job('outbox-4000003', two.id, [erin.id]),
      job('outbox-4000000', one.id, [bob.id, carol.id]),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'failed'))).toEqual([
      { delivered: 2 }, { delivered: 1 }, 'failed', { delivered: 1 }, { delivered: 0 },
    ]);
    expect(await kinds(bob, one.id)).toEqual(['assigned']);
    expect(await kinds(carol, one.id)).toEqual(['assigned']);
    expect(await kinds(dave, two.id)).toEqual(['assigned']);
    expect(await kinds(erin, two.id)).toEqual(['assigned']);
  });

  it('a rolled back transaction leaves no job behind', async () => {
    const store = h.runtime.deps.store;
    const pending = await store.outbox.pending();
    await expect(
      store.transaction(async (repos) => {
        await repos.outbox.add([{ name: 'notify.assigned', payload: { workspaceId: ws.id, taskId: 'task_x', actorId: alice.id, userIds: [bob.id] } }]);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await store.outbox.pending()).toBe(pending);
    // A refused request writes nothing either.
    const t = await task(alice, { title: 'Refused' });
    expect((await h.call(bob.token, 'POST', `/tasks/${t.id}/comments`, { text: 'x', replyTo: 'cmt_nope' })).status).toBe(404);
    await drain();
    expect(await kinds(alice, t.id)).toEqual([]);
  });
});

describe('GET /v1/notifications and POST /v1/notifications/read', () => {
  let reader: U;
  const made: string[] = [];
  beforeAll(async () => {
    reader = await person('reader');
    for (let i = 0; i < 5; i++) made.push((await task(alice, { title: `For reader ${i}`, assigneeIds: [reader.id] })).id);
    await drain();
  });

  it('pages newest first with a stable cursor and a total', async () => {
    const all = await inbox(reader);
    expect(all.total).toBe(5);
    expect(all.nextCursor).toBeNull();
    expect(all.data.map((n: any) => n.taskId)).toEqual([...made].reverse());
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await inbox(reader, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.total).toBe(5);
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((n: any) => n.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.data.map((n: any) => n.id));
  });

  it('marks read by ids or all, counting only what changed, and filters by unread', async () => {
    const all = (await inbox(reader)).data;
    const two = all.slice(0, 2).map((n: any) => n.id);
    const mark = (body: unknown, u = reader) => h.call(u.token, 'POST', '/notifications/read', body);
    expect((await mark({ ids: [...two, 'ntf_not_mine'] })).body).toEqual({ data: { marked: 2 } });
    expect((await mark({ ids: two })).body).toEqual({ data: { marked: 0 } });
    // Someone else's ids do nothing.
    expect((await mark({ ids: [all[2].id] }, bob)).body.data.marked).toBe(0);
    const unread = await inbox(reader, '?unread=true');
    expect(unread.total).toBe(3);
    expect(unread.data.every((n: any) => n.read === false)).toBe(true);
    expect((await inbox(reader, '?unread=false')).data.map((n: any) => n.id)).toEqual(two);
    expect((await mark({ all: true })).body.data.marked).toBe(3);
    expect((await inbox(reader, '?unread=true')).total).toBe(0);
    expect((await h.op('GET', `/users/${reader.id}/notifications`)).body.data.every((n: any) => n.read)).toBe(true);
  });

  it('answers 400 naming the field for bad input', async () => {
    const bad = async (method: string, path: string, body: unknown, field: string) => {
      const r = await h.call(reader.token, method, path, body);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
      expect(r.body.error.message).toContain(field);
    };
    await bad('POST', '/notifications/read', {}, 'body.ids');
    await bad('POST', '/notifications/read', { ids: [] }, 'body.ids');
    await bad('POST', '/notifications/read', { ids: ['a'], all: true }, 'body.all');
    await bad('POST', '/notifications/read', { all: false }, 'body.all');
    await bad('POST', '/notifications/read', { ids: ['a'], extra: 1 }, 'body.extra');
    await bad('GET', '/notifications?unread=maybe', undefined, 'query.unread');
    await bad('GET', '/notifications?limit=501', undefined, 'query.limit');
    await bad('GET', '/notifications?cursor=nonsense', undefined, 'cursor');
    expect((await h.call(null, 'GET', '/notifications')).status).toBe(401);
  });

  it('a key limited to projects sees only notifications about those projects', async () => {
    const other = (await h.call(ws.token, 'POST', '/projects', { name: 'Other', key: 'OTN' })).body.data;
    await h.call(alice.token, 'POST', '/tasks', { boardId: other.boards[0].id, title: 'Elsewhere', assigneeIds: [reader.id] });
    await drain();
    expect((await inbox(reader)).total).toBe(6);
    const limited = (await ws.key(reader.id, { projectIds: [board.projectId], scopes: [] })).token;
    const r = await h.call(limited, 'GET', '/notifications');
    expect(r.body.total).toBe(5);
    expect(r.body.data.every((n: any) => made.includes(n.taskId))).toBe(true);
    expect((await h.call(limited, 'POST', '/notifications/read', { all: true })).body.data.marked).toBe(0);
  });

  it('the operator lists any user notifications in the documented shape; 404 for an unknown user', async () => {
    const r = await h.op('GET', `/users/${reader.id}/notifications`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.data[0]).sort()).toEqual(['actorId', 'commentId', 'createdAt', 'id', 'kind', 'read', 'taskId']);
    expect(r.body.data.map((n: any) => n.createdAt)).toEqual([...r.body.data.map((n: any) => n.createdAt)].sort((a, b) => b - a));
    expect((await h.op('GET', '/users/usr_nope/notifications')).status).toBe(404);
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await h.call(null, 'GET', '/openapi.json')).body;
    expect(doc.paths['/v1/notifications'].get.parameters.map((p: any) => p.name).sort()).toEqual(['cursor', 'limit', 'unread']);
    expect(doc.paths['/v1/notifications/read'].post.requestBody).toBeDefined();
    expect(doc.components.schemas.Notification.properties.kind.enum).toEqual(['assigned', 'comment', 'mention', 'reply']);
  });
});
