import { activity, ACTIVITY_COUNT_CAP, type Deps, keys as keyUseCases, tasks } from '@tt/domain';
import { TaskTrackerClient, type ActivityEntry } from '@tt/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWorkspace } from '../../test/harness.js';

// The folder's tests share one API (a harness takes about 10 s to start); each part works in a workspace of its own.
let h: Harness;
const DAY = 86_400_000;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

// First: drain() waits for every job of the process, and the webhook parts below leave deliveries to an unreachable
// receiver retrying in it.
describe("an automation's changes", () => {
  let ws: TestWorkspace;

  beforeAll(async () => {
    ws = await h.workspace();
  });

  it('are recorded as the worker, acting as the rule owner, with the automation id, in webhook task.updated too', async () => {
    const project = (await h.call(ws.token, 'POST', '/projects', { name: 'Web', key: 'WEB' })).body.data;
    const board = (await h.call(ws.token, 'GET', `/boards?projectId=${project.id}`)).body.data[0];
    const rule = (await h.op('POST', `/boards/${board.id}/automations`, {
      trigger: 'task_created', ownerId: ws.adminUser.id,
      actions: [
        { type: 'set_priority', priority: 'high' }, { type: 'add_labels', labels: ['triage'] }, { type: 'move', statusId: board.statuses[1].id },
        { type: 'add_checklist', items: [{ text: 'Reproduce', done: false }] }, { type: 'comment', text: 'Triaged automatically' },
      ],
    })).body.data;
    const member = await ws.user();
    const memberKey = await ws.key(member.id);
    const t = (await h.call(memberKey.token, 'POST', '/tasks', { projectId: project.id, title: 'Crash on start' })).body.data;
    await h.runtime.jobs.drain();
    const entries = (await h.call(ws.token, 'GET', `/tasks/${t.key}/activity`)).body.data as any[];
    const created = entries.at(-1);
    expect(created).toMatchObject({ action: 'task.created', actor: { id: member.id }, via: { channel: 'rest', keyId: memberKey.id } });
    const byRule = entries.slice(0, -1);
    expect(byRule.map((e) => e.action)).toEqual(['comment.created', 'task.updated', 'task.moved', 'task.updated', 'task.updated']);
    for (const e of byRule) {
      expect(e).toMatchObject({ actor: { id: ws.adminUser.id }, via: { channel: 'worker', keyId: null, clientName: null, automationId: rule.id } });
    }
    expect(byRule.flatMap((e) => e.changes.map((c: any) => c.field))).toEqual(expect.arrayContaining(['priority', 'labels', 'status', 'checklist', 'comment']));
    const byWorker = (await h.call(ws.token, 'GET', `/activity?taskId=${t.key}`)).body.data.filter((e: any) => e.via.channel === 'worker');
    expect(byWorker).toHaveLength(5);
  });
});

describe('REST activity', () => {
  let ws: TestWorkspace;
  let project: any;
  let other: any;
  let board: any;

  beforeAll(async () => {
    ws = await h.workspace();
    project = (await h.call(ws.token, 'POST', '/projects', { name: 'Web', key: 'WEB' })).body.data;
    other = (await h.call(ws.token, 'POST', '/projects', { name: 'Ops', key: 'OPS' })).body.data;
    board = (await h.call(ws.token, 'GET', `/boards?projectId=${project.id}`)).body.data[0];
  });

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
});

describe('SDK: activity', () => {
  let ws: TestWorkspace;
  let client: TaskTrackerClient;

  beforeAll(async () => {
    ws = await h.workspace();
    client = new TaskTrackerClient({ baseUrl: h.base, apiKey: ws.token });
  });

  it('reads a task history (client.tasks.activity) and iterates the feed across pages (client.activity.iterate)', async () => {
    const since = new Date();
    const project = await client.projects.create({ name: 'Web', key: 'WEB' });
    const task = await client.tasks.create({ projectId: project.id, title: 'Typed history' });
    await client.tasks.update(task.key, { priority: 'high' });
    await client.tasks.update(task.key, { title: 'Typed history, renamed' });

    const page = await client.tasks.activity(task.key, { limit: 2 });
    expect(page.total).toBe(3);
    expect(page.data.map((e) => e.action)).toEqual(['task.updated', 'task.updated']);
    const first: ActivityEntry = page.data[0]!;
    expect(first.changes).toEqual([{ field: 'title', from: 'Typed history', to: 'Typed history, renamed' }]);
    expect(first.via).toEqual({ channel: 'rest', keyId: ws.keyId, clientName: null, automationId: null });

    const all: ActivityEntry[] = [];
    for await (const e of client.activity.iterate({ since, taskId: task.key, limit: 1 })) all.push(e);
    expect(all.map((e) => e.action)).toEqual(['task.updated', 'task.updated', 'task.created']);
    expect(all.every((e) => e.task?.key === task.key)).toBe(true);
  });
});

describe('webhook task.updated', () => {
  let ws: TestWorkspace;

  beforeAll(async () => {
    ws = await h.workspace();
  });

  it('carries the activity entry: the same id, via and changes list as GET /tasks/{ref}/activity', async () => {
    const project = (await h.call(ws.token, 'POST', '/projects', { name: 'Web', key: 'WEB' })).body.data;
    const hook = await h.op('POST', `/workspaces/${ws.id}/webhooks`, { url: 'http://93.184.216.34/hook', events: ['task.updated'] });
    expect(hook.status, hook.text).toBe(201);
    const t = (await h.call(ws.token, 'POST', '/tasks', { projectId: project.id, title: 'Hooked' })).body.data;
    expect((await h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { title: 'Hooked twice', labels: ['x'] })).status).toBe(200);
    const [entry] = (await h.call(ws.token, 'GET', `/tasks/${t.key}/activity`)).body.data;
    // The stored event is exactly the body every delivery sends.
    const rows = await h.runtime.db('webhook_events').where({ workspace_id: ws.id, type: 'task.updated' }).select('data');
    expect(rows).toHaveLength(1);
    const data = typeof rows[0].data === 'string' ? JSON.parse(rows[0].data) : rows[0].data;
    expect(data.activity).toEqual({ id: entry.id, via: { channel: 'rest', keyId: ws.keyId, clientName: null }, changes: entry.changes });
    expect(data.activity.changes).toEqual([{ field: 'title', from: 'Hooked', to: 'Hooked twice' }, { field: 'labels', from: [], to: ['x'] }]);
    expect(data.changes).toEqual(['title', 'labels']);
  });
});

describe('GET /admin/v1/audit', () => {
  let ws: TestWorkspace;

  beforeAll(async () => {
    ws = await h.workspace();
  });

  const audit = async (query: string) => {
    const r = await h.op('GET', `/audit?workspaceId=${ws.id}&limit=500${query}`);
    expect(r.status, r.text).toBe(200);
    return r.body.data as any[];
  };

  it('lists keys issued, changed and revoked, users added and removed, settings and webhooks, by the operator, with no secret', async () => {
    const u = (await h.op('POST', `/workspaces/${ws.id}/users`, { name: 'Ann Audit', login: 'ann', role: 'QA', isAdmin: false })).body.data;
    const issued = (await h.op('POST', `/users/${u.id}/keys`, { scopes: ['tasks:read'], projectIds: null, expiresAt: null, allowedIps: [] })).body.data;
    expect(issued.token).toMatch(/^tt_/);
    const until = Date.now() + 40 * 86_400_000;
    expect((await h.op('PATCH', `/keys/${issued.id}`, { expiresAt: until })).status).toBe(200);
    expect((await h.op('DELETE', `/keys/${issued.id}`)).status).toBe(204);
    expect((await h.op('PATCH', `/workspaces/${ws.id}`, { memberKeysEnabled: false })).status).toBe(200);
    const hook = (await h.op('POST', `/workspaces/${ws.id}/webhooks`, { url: 'http://93.184.216.34/hook/s3cr3t-path?token=abc', events: ['task.created'] })).body.data;
    expect(hook.secret).toBeTruthy();
    expect((await h.op('PATCH', `/webhooks/${hook.id}`, { events: ['task.created', 'task.updated'] })).status).toBe(200);
    expect((await h.op('DELETE', `/webhooks/${hook.id}`)).status).toBe(204);
    expect((await h.op('DELETE', `/users/${u.id}`)).status).toBe(204);

    const entries = await audit('');
    const actions = entries.map((e) => e.action);
    for (const a of ['user.added', 'key.issued', 'key.changed', 'key.revoked', 'workspace.changed', 'webhook.created', 'webhook.changed', 'webhook.deleted', 'user.removed']) {
      expect(actions, a).toContain(a);
    }
    // Newest first.
    expect(actions.indexOf('user.removed')).toBeLessThan(actions.indexOf('user.added'));
    const byAction = (a: string) => entries.find((e) => e.action === a);
    expect(byAction('key.issued')).toMatchObject({
      actor: { kind: 'operator', id: null }, via: { channel: 'operator', keyId: null }, target: { type: 'key', id: issued.id },
      details: { userId: u.id, scopes: ['tasks:read'] },
    });
    expect(byAction('key.changed').details.expiresAt).toEqual({ from: null, to: until });
    expect(byAction('workspace.changed').details.changes).toEqual([{ field: 'memberKeysEnabled', from: true, to: false }]);
    expect(byAction('user.added').details).toMatchObject({ login: 'ann' });
    expect(byAction('webhook.created').details).toMatchObject({ origin: 'http://93.184.216.34', events: ['task.created'] });
    expect(byAction('webhook.changed').details.to.events).toEqual(['task.created', 'task.updated']);

    const text = JSON.stringify(entries);
    for (const secret of [issued.token, hook.secret, 's3cr3t-path', 'token=abc']) expect(text).not.toContain(secret);

    // Filters: action, period; a bad moment is 400 naming the field.
    expect((await audit('&action=key.revoked')).map((e) => e.target.id)).toEqual([issued.id]);
    expect(await audit(`&until=${entries[entries.length - 1].at}`)).toEqual([]);
    const bad = await h.op('GET', '/audit?since=soon');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('since');
  });

  it('needs the operator token and pages with a cursor', async () => {
    expect((await h.call(ws.token, 'GET', '/../admin/v1/audit')).status).not.toBe(200);
    expect((await fetch(`${h.base}/admin/v1/audit`)).status).toBe(401);
    const first = await h.op('GET', `/audit?workspaceId=${ws.id}&limit=2`);
    expect(first.body.data).toHaveLength(2);
    const next = await h.op('GET', `/audit?workspaceId=${ws.id}&limit=2&cursor=${first.body.nextCursor}`);
    expect(next.body.data[0].id).not.toBe(first.body.data[1].id);
    expect(next.body.data[0].at).toBeLessThanOrEqual(first.body.data[1].at);
  });
});

describe('GET /tasks createdSince and createdBefore', () => {
  let ws: TestWorkspace;

  beforeAll(async () => {
    ws = await h.workspace();
  });

  const keys = async (query: string) => {
    const r = await h.call(ws.token, 'GET', `/tasks?${query}`);
    expect(r.status, r.text).toBe(200);
    return (r.body.data as any[]).map((t) => t.key);
  };

  it('bound the creation time, read without an offset in the workspace time zone, with the other filters', async () => {
    const project = (await h.call(ws.token, 'POST', '/projects', { name: 'Web', key: 'WEB' })).body.data;
    const a = (await h.call(ws.token, 'POST', '/tasks', { projectId: project.id, title: 'Older' })).body.data;
    await new Promise((r) => setTimeout(r, 20));
    const between = Date.now();
    await new Promise((r) => setTimeout(r, 20));
    const b = (await h.call(ws.token, 'POST', '/tasks', { projectId: project.id, title: 'Newer', priority: 'high' })).body.data;
    const p = `projectId=${project.id}`;
    expect(await keys(`${p}&createdSince=${between}`)).toEqual([b.key]);
    expect(await keys(`${p}&createdBefore=${between}`)).toEqual([a.key]);
    expect(await keys(`${p}&createdSince=${between}&priority=medium`)).toEqual([]);
    expect((await h.call(ws.token, 'GET', `/tasks?${p}&createdSince=${between}`)).body.total).toBe(1);
    // Moscow wall-clock time, no offset: a minute before creation includes both; read as UTC it would be 3 h ahead.
    const moscow = (ms: number) => new Date(ms + 3 * 3_600_000).toISOString().slice(0, 19);
    expect(await keys(`${p}&createdSince=${moscow(a.createdAt - 60_000)}`)).toEqual([a.key, b.key]);
    expect(await keys(`${p}&createdBefore=${moscow(a.createdAt - 60_000)}`)).toEqual([]);
    const bad = await h.call(ws.token, 'GET', `/tasks?${p}&createdSince=last-week`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('createdSince');
  });
});

describe('activity retention (ACTIVITY_RETENTION_DAYS)', () => {
  let ws: TestWorkspace;

  beforeAll(async () => {
    ws = await h.workspace();
  });

  it('deletes entries older than the retention and keeps the rest and the audit log', async () => {
    const project = (await h.call(ws.token, 'POST', '/projects', { name: 'Kept', key: 'KEP' })).body.data;
    const real = h.runtime.deps;
    // Entries written "40 days ago" and today, through the same use cases.
    const past: Deps = { ...real, now: () => Date.now() - 40 * DAY };
    const me = await keyUseCases.authenticate({ authorization: `Bearer ${ws.token}`, ip: '127.0.0.1', surface: 'api' }, real);
    const old = await tasks.createTask(me, { projectId: project.id, title: 'Old news' }, past);
    await tasks.updateTask(me, old.key, { priority: 'high' }, past);
    const fresh = await tasks.createTask(me, { projectId: project.id, title: 'Fresh' }, real);
    const count = async (key: string) => (await h.call(ws.token, 'GET', `/tasks/${key}/activity`)).body.total as number;
    expect(await count(old.key)).toBe(2);
    const auditBefore = (await h.op('GET', `/audit?workspaceId=${ws.id}`)).body.total;

    expect(await activity.pruneActivity(30, real)).toBe(2);
    expect(await count(old.key)).toBe(0);
    expect(await count(fresh.key)).toBe(1);
    expect((await h.op('GET', `/audit?workspaceId=${ws.id}`)).body.total).toBe(auditBefore);
    // Nothing older left: a second pass deletes nothing.
    expect(await activity.pruneActivity(30, real)).toBe(0);
  });
});

describe('the count of an activity list', () => {
  let ws: TestWorkspace;

  beforeAll(async () => {
    ws = await h.workspace();
  });

  it(`is exact up to ${ACTIVITY_COUNT_CAP} matches and stops there with totalCapped, while the pages go on`, async () => {
    const project = (await h.call(ws.token, 'POST', '/projects', { name: 'Busy', key: 'BSY' })).body.data;
    const t = (await h.call(ws.token, 'POST', '/tasks', { projectId: project.id, title: 'Much edited' })).body.data;
    // ACTIVITY_COUNT_CAP more entries of the task, one a second before its creation: with that, one more than the cap.
    const first = t.createdAt - 1000;
    await h.runtime.db.raw(
      `insert into activity (id, workspace_id, at, actor_id, channel, key_id, project_id, board_id, task_id, task_key, action, changes)
       select 'act_count_' || g, ?, ?::bigint - (g - 1) * 1000, ?, 'rest', ?, ?, ?, ?, ?, 'task.updated', '[]'::jsonb from generate_series(1, ?) g`,
      [ws.id, first, ws.adminUser.id, ws.keyId, project.id, t.boardId, t.id, t.key, ACTIVITY_COUNT_CAP],
    );
    const get = async (path: string) => {
      const r = await h.call(ws.token, 'GET', path);
      expect(r.status, r.text).toBe(200);
      return r.body;
    };

    const history = await get(`/tasks/${t.key}/activity?limit=10`);
    expect(history).toMatchObject({ total: ACTIVITY_COUNT_CAP, totalCapped: true });
    expect(history.data).toHaveLength(10);
    expect(history.nextCursor).not.toBeNull();
    expect(await get(`/activity?taskId=${t.key}&limit=1`)).toMatchObject({ total: ACTIVITY_COUNT_CAP, totalCapped: true });
    // Exactly the cap: still exact. Fewer: exact.
    const exactlyCap = first - (ACTIVITY_COUNT_CAP - 2) * 1000;
    expect(await get(`/activity?taskId=${t.key}&since=${exactlyCap}&limit=1`)).toMatchObject({ total: ACTIVITY_COUNT_CAP, totalCapped: false });
    expect(await get(`/activity?taskId=${t.key}&since=${first - 9000}&limit=1`)).toMatchObject({ total: 11, totalCapped: false });

    // Only the count stops: the pages still reach every entry.
    let cursor: string | null = history.nextCursor;
    let seen = history.data.length;
    while (cursor) {
      const page = await get(`/tasks/${t.key}/activity?limit=100&cursor=${cursor}`);
      seen += page.data.length;
      cursor = page.nextCursor;
    }
    expect(seen).toBe(ACTIVITY_COUNT_CAP + 1);
  });
});
