import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type Board, OperatorClient, type ProjectWithBoards, type Task, TaskTrackerClient } from '@tt/sdk';
import { quickstart } from '../../../packages/sdk/examples/quickstart.js';
import { type Harness, startHarness, type TestWorkspace } from './test/harness.js';

// This file's own tests; their setup and state stay inside this describe.
describe('sdk', () => {
  // The SDK against the real API (PGlite, or PostgreSQL with TEST_DATABASE_URL), through real HTTP.
  let h: Harness;
  let ws: TestWorkspace;
  let client: TaskTrackerClient;
  let project: ProjectWithBoards;
  let board: Board;
  let bob: { id: string; login: string; client: TaskTrackerClient };

  const errorOf = (p: Promise<unknown>): Promise<ApiError> =>
    p.then(
      () => {
        throw new Error('expected an ApiError');
      },
      (e: unknown) => {
        expect(e).toBeInstanceOf(ApiError);
        return e as ApiError;
      },
    );

  beforeAll(async () => {
    h = await startHarness();
    ws = await h.workspace();
    client = new TaskTrackerClient({ baseUrl: `${h.base}/v1`, apiKey: ws.token });
    const b = await ws.user({ login: 'bob', name: 'Bob Builder' });
    bob = { ...b, client: new TaskTrackerClient({ baseUrl: h.base, apiKey: (await ws.key(b.id)).token }) };
    project = await client.projects.create({ name: 'Web site', key: 'WEB', template: 'scrum' });
    board = project.boards[0]!;
  });
  afterAll(() => h.close());

  describe('company and projects', () => {
    it('reads the key, users, teams and labels', async () => {
      const me = await client.me();
      expect(me).toMatchObject({ user: { id: ws.adminUser.id, login: ws.adminUser.login }, workspace: { id: ws.id }, key: { id: ws.keyId, projectIds: null } });
      const logins: string[] = [];
      for await (const u of client.users.iterate({ limit: 1 })) logins.push(u.login);
      expect(logins.sort()).toEqual([ws.adminUser.login, 'bob'].sort());
      expect((await client.users.list({ q: 'Builder' })).data.map((u) => u.id)).toEqual([bob.id]);
      expect((await client.teams.list()).total).toBe(0);
      await client.tasks.create({ projectId: project.id, title: 'Labelled', labels: ['frontend'] });
      expect(await client.labels.list()).toContain('frontend');
      expect(client.lastRateLimit).toMatchObject({ limit: 100000 });
    });

    it('creates, reads and changes projects and boards', async () => {
      expect(project.boards.map((b) => b.name)).toHaveLength(1);
      expect(await client.projects.get(project.id)).toEqual(project);
      expect(await client.projects.update(project.id, { description: 'The public site' })).toMatchObject({ id: project.id, description: 'The public site' });
      expect((await client.projects.list()).data.map((p) => p.key)).toContain('WEB');
      const bugs = await client.boards.create({ projectId: project.id, name: 'Bugs', template: 'bugs' });
      const widened = await client.boards.addStatus(bugs.id, { name: 'Needs info', category: 'todo' });
      expect(widened.statuses.at(-1)).toMatchObject({ name: 'Needs info', category: 'todo' });
      expect(await client.boards.get(bugs.id)).toEqual(widened);
      const boards: string[] = [];
      for await (const b of client.boards.iterate({ projectId: project.id, limit: 1 })) boards.push(b.id);
      expect(boards).toEqual([board.id, bugs.id]);
    });
  });

  describe('tasks', () => {
    let task: Task;

    it('creates, reads by key, changes, moves, comments on and deletes a task', async () => {
      task = await client.tasks.create({
        projectId: project.id, title: 'Landing page', descriptionText: 'Hero and pricing', priority: 'high',
        assigneeIds: [bob.id], checklist: [{ text: 'Copy' }, { text: 'Design', done: true }], dueDate: '2026-12-01',
      });
      expect(task).toMatchObject({ key: 'WEB-2', boardId: board.id, statusId: board.statuses[0]!.id, assigneeId: bob.id, reporterId: ws.adminUser.id });
      expect(task.checklist.map((c) => [c.text, c.done])).toEqual([['Copy', false], ['Design', true]]);
      // A create answers with the task's position in its column; a read or a change only when asked.
      expect(await client.tasks.get('WEB-2', { include: 'position' })).toEqual(task);
      const { position, ...form } = task;
      expect(position).toEqual(expect.any(Number));
      expect(await client.tasks.get('WEB-2')).toEqual(form);

      const changed = await client.tasks.update(task.key, { title: 'Landing page v2', labels: ['web'], dueDate: null });
      expect(changed).toMatchObject({ title: 'Landing page v2', labels: ['web'], dueDate: null });
      expect(changed).not.toHaveProperty('position');
      expect(await client.tasks.update(task.key, { priority: 'highest' }, { include: 'position' })).toMatchObject({ priority: 'highest', position });
      const done = board.statuses.find((s) => s.category === 'done')!;
      const moved = await client.tasks.move(task.id, { statusId: done.id });
      expect(moved.status).toEqual({ name: done.name, category: 'done' });

      const first = await client.tasks.addComment(task.key, { text: `@${bob.login} please review` });
      expect(first.mentionIds).toEqual([bob.id]);
      const reply = await bob.client.tasks.addComment(task.key, { text: 'Looks good', replyTo: first.id });
      const ids: string[] = [];
      for await (const c of client.tasks.iterateComments(task.key, { limit: 1 })) ids.push(c.id);
      expect(ids).toEqual([first.id, reply.id]);
      expect((await client.tasks.listComments(task.key)).total).toBe(2);

      const markdown = await client.tasks.context(task.key);
      expect(typeof markdown).toBe('string');
      expect(markdown).toContain('Landing page v2');
      expect(markdown).toContain('Looks good');
      expect(await client.tasks.contextJson(task.key)).toEqual({ taskId: task.id, key: task.key, markdown });

      const sub = await client.tasks.create({ projectId: project.id, title: 'Hero image', parentId: task.id });
      await client.tasks.delete(sub.key);
      expect((await errorOf(client.tasks.get(sub.key))).code).toBe('not_found');
    });

    it('iterates over more than one page in creation order', async () => {
      const other = await client.projects.create({ name: 'Paging', key: 'PAG' });
      const created: string[] = [];
      for (let i = 1; i <= 7; i++) created.push((await client.tasks.create({ projectId: other.id, title: `Item ${i}` })).key);
      const seen: string[] = [];
      for await (const t of client.tasks.iterate({ projectId: other.id, limit: 3 })) seen.push(t.key);
      expect(seen).toEqual(created);
      const pages = [];
      for await (const page of client.tasks.pages({ projectId: other.id, limit: 3 })) pages.push(page);
      expect(pages.map((p) => p.data.length)).toEqual([3, 3, 1]);
      expect(pages.map((p) => p.total)).toEqual([7, 7, 7]);
      expect(pages.at(-1)!.nextCursor).toBeNull();
      // Filters travel with every page: comma lists from arrays, the rest as given.
      await client.tasks.update(created[0]!, { priority: 'lowest' });
      await client.tasks.update(created[6]!, { priority: 'highest', labels: ['x', 'y'] });
      const filtered: string[] = [];
      for await (const t of client.tasks.iterate({ projectId: other.id, priority: ['lowest', 'highest'], limit: 1 })) filtered.push(t.key);
      expect(filtered).toEqual([created[0], created[6]]);
      expect((await client.tasks.list({ projectId: other.id, label: ['x', 'y'] })).data.map((t) => t.key)).toEqual([created[6]]);
    });

    it('changes many tasks in one call with tasks.bulk, each item answered in order; atomic throws the failing item', async () => {
      const a = await client.tasks.create({ projectId: project.id, title: 'Bulk a' });
      const b = await client.tasks.create({ projectId: project.id, title: 'Bulk b' });
      const results = await client.tasks.bulk([
        { task: a.key, priority: 'low', labels: ['bulk'] },
        { task: b.id, column: 'done' },
        { task: 'WEB-9999', title: 'missing' },
      ]);
      expect(results.map((r) => [r.task, r.status])).toEqual([[a.key, 200], [b.key, 200], ['WEB-9999', 404]]);
      expect(results[0]!.data).toMatchObject({ priority: 'low', labels: ['bulk'] });
      expect(results[1]!.data!.status.category).toBe('done');
      expect(results[2]!.error!.code).toBe('not_found');
      const failed = await errorOf(client.tasks.bulk([{ task: a.key, title: 'never' }, { task: b.key, priority: 'urgent' as never }], { atomic: true }));
      expect([failed.status, failed.code]).toEqual([400, 'invalid_request']);
      expect(failed.message).toContain('items[1].priority');
      expect((await client.tasks.get(a.key)).title).toBe('Bulk a');
    });
  });

  describe('errors carry the spec codes', () => {
    it('invalid_request names the field, with the request id', async () => {
      const e = await errorOf(client.tasks.create({ projectId: project.id, title: '' }));
      expect(e).toMatchObject({ status: 400, code: 'invalid_request', method: 'POST', path: '/v1/tasks' });
      expect(e.message).toContain('body.title');
      expect(e.requestId).toEqual(expect.any(String));
      const q = await errorOf(client.tasks.list({ limit: 501 }));
      expect(q.message).toContain('query.limit');
    });

    it('invalid_key, insufficient_scope, not_found, archived and rejected', async () => {
      const stranger = new TaskTrackerClient({ baseUrl: h.base, apiKey: 'tt_not_a_real_key' });
      expect(await errorOf(stranger.me())).toMatchObject({ status: 401, code: 'invalid_key' });
      const reader = new TaskTrackerClient({ baseUrl: h.base, apiKey: (await ws.key(ws.adminUser.id, { scopes: ['tasks:read'] })).token });
      const denied = await errorOf(reader.tasks.create({ projectId: project.id, title: 'nope' }));
      expect(denied).toMatchObject({ status: 403, code: 'insufficient_scope' });
      expect(denied.message).toContain('tasks:write');
      expect(await errorOf(client.projects.get('nope'))).toMatchObject({ status: 404, code: 'not_found' });

      const old = await client.tasks.create({ projectId: project.id, title: 'Old news' });
      expect((await h.op('POST', `/tasks/${old.id}/archive`)).status).toBe(200);
      expect(await errorOf(client.tasks.update(old.key, { title: 'x' }))).toMatchObject({ status: 409, code: 'archived' });

      const parent = await client.tasks.create({ projectId: project.id, title: 'Parent' });
      const child = await client.tasks.create({ projectId: project.id, title: 'Child', parentId: parent.id });
      expect(await errorOf(client.tasks.update(parent.key, { parentId: child.id }))).toMatchObject({ status: 422, code: 'rejected' });
    });
  });

  describe('time, documents, meetings, notifications', () => {
    it('logs time and reads entries and reports', async () => {
      const t = await client.tasks.create({ projectId: project.id, title: 'Timed' });
      const entry = await client.tasks.logTime(t.key, { minutes: 90, note: 'pairing', date: '2026-03-02' });
      expect(entry).toMatchObject({ taskId: t.id, taskKey: t.key, seconds: 5400, date: '2026-03-02', note: 'pairing', userId: ws.adminUser.id });
      await client.tasks.logTime(t.id, { seconds: 600, date: '2026-03-03' });
      const period = { from: '2026-03-01', to: '2026-03-31', taskId: [t.id] };
      const entries = [];
      for await (const e of client.time.iterateEntries({ ...period, limit: 1 })) entries.push(e.seconds);
      expect(entries).toEqual([600, 5400]);
      expect((await client.time.entries(period)).total).toBe(2);
      const report = await client.time.report({ ...period, groupBy: ['user', 'day'] });
      expect(report).toMatchObject({ from: '2026-03-01', to: '2026-03-31', groupBy: ['user', 'day'], totalSeconds: 6000 });
      expect(report.data.map((r) => [r.user?.id, r.day?.date, r.seconds])).toEqual([
        [ws.adminUser.id, '2026-03-02', 5400],
        [ws.adminUser.id, '2026-03-03', 600],
      ]);
    });

    it('lists spaces, creates, reads (JSON and Markdown), changes and lists pages', async () => {
      const space = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Handbook' })).body.data;
      expect((await client.docs.spaces()).data.map((s) => s.id)).toContain(space.id);
      const t = await client.tasks.create({ projectId: project.id, title: 'Document me' });
      const page = await client.docs.create({ spaceId: space.id, title: 'Onboarding', content: '<h1>Welcome</h1><p>Read <b>this</b></p><script>x()</script>', taskIds: [t.key] });
      expect(page).toMatchObject({ spaceId: space.id, title: 'Onboarding', taskIds: [t.id], parentId: null });
      expect(page.content).not.toContain('script');
      const child = await client.docs.create({ spaceId: space.id, title: 'Laptop', text: 'Ask IT', parentId: page.id });
      expect(await client.docs.get(page.id)).toEqual(page);
      const markdown = await client.docs.getMarkdown(page.id);
      expect(markdown).toContain('Welcome');
      expect(markdown).toContain('**this**');
      const changed = await client.docs.update(page.id, { title: 'Onboarding guide' });
      expect(changed.title).toBe('Onboarding guide');
      const titles: string[] = [];
      for await (const d of client.docs.iterate({ spaceId: space.id, limit: 1 })) titles.push(d.title);
      expect(titles).toEqual(['Onboarding guide', 'Laptop']);
      expect((await client.docs.list({ taskId: t.key })).data.map((d) => d.id)).toEqual([page.id]);
      expect(child.parentId).toBe(page.id);
      expect((await client.tasks.get(t.key)).docIds).toEqual([page.id]);
    });

    it('lists folders and meetings, reads a summary and the transcript as JSON and text', async () => {
      const folder = (await h.op('POST', `/workspaces/${ws.id}/meeting-folders`, { name: 'Standups' })).body.data;
      const created = await h.op('POST', `/workspaces/${ws.id}/meetings`, {
        title: 'Daily standup', folderId: folder.id, createdBy: ws.adminUser.id, startedAt: Date.UTC(2026, 2, 2, 9), endedAt: Date.UTC(2026, 2, 2, 9, 15),
        participants: ['Alice', 'Bob'], summary: { overview: 'Release on Friday', decisions: ['Freeze Thursday'] },
        transcript: [
          { speaker: 'Alice', start: '00:00:01', end: '00:00:04', text: 'Morning' },
          { speaker: 'Bob', start: '00:00:05', end: '00:00:09', text: 'Release is on track' },
        ],
      });
      expect(created.status, created.text).toBe(201);
      const meeting = created.body.data;
      expect((await client.meetings.folders()).data.map((f) => f.id)).toContain(folder.id);
      const listed = [];
      for await (const m of client.meetings.iterate({ folderId: folder.id, limit: 1 })) listed.push(m.id);
      expect(listed).toEqual([meeting.id]);
      const full = await client.meetings.get(meeting.id);
      expect(full.summary).toMatchObject({ overview: 'Release on Friday', decisions: ['Freeze Thursday'] });
      expect((await client.meetings.transcript(meeting.id)).replicas.map((r) => r.speaker)).toEqual(['Alice', 'Bob']);
      expect(await client.meetings.transcriptText(meeting.id)).toBe('[00:00:01] Alice: Morning\n[00:00:05] Bob: Release is on track\n');
    });

    it('reads and clears the inbox', async () => {
      const t = await client.tasks.create({ projectId: project.id, title: 'For Bob', assigneeIds: [bob.id] });
      await client.tasks.addComment(t.key, { text: `@${bob.login} over to you` });
      await h.runtime.jobs.drain();
      const unread = [];
      for await (const n of bob.client.notifications.iterate({ unread: true, limit: 1 })) if (n.taskId === t.id) unread.push(n.kind);
      expect(unread).toEqual(['mention', 'assigned']);
      const first = (await bob.client.notifications.list({ unread: true })).data[0]!;
      expect(await bob.client.notifications.markRead({ ids: [first.id] })).toEqual({ marked: 1 });
      const rest = (await bob.client.notifications.list({ unread: true })).total;
      expect(await bob.client.notifications.markRead({ all: true })).toEqual({ marked: rest });
      expect((await bob.client.notifications.list({ unread: true })).total).toBe(0);
    });
  });

  describe('the README example', () => {
    it('runs from start to end against the API', async () => {
      const lines: string[] = [];
      const key = await quickstart(client, (line) => lines.push(line));
      expect((await client.tasks.list({ projectId: (await client.projects.list()).data.find((p) => p.key === key)!.id })).total).toBe(5);
      expect(lines.some((l) => l.startsWith('Expected error: 404 not_found'))).toBe(true);
    });
  });
});

// The tests of apps/api/src/sdk-etag.int.test.ts, folded in here (one test process and one module load for them all); their setup and state stay inside this describe.
describe('sdk-etag', () => {
  // The SDK's getWithEtag and ifMatch against the real API, through real HTTP.
  let h: Harness;
  let ws: TestWorkspace;
  let client: TaskTrackerClient;
  let project: ProjectWithBoards;

  const preconditionFailed = async (p: Promise<unknown>): Promise<ApiError> => {
    const e = await p.then(
      () => {
        throw new Error('expected a 412');
      },
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 412, code: 'precondition_failed' });
    return e as ApiError;
  };

  beforeAll(async () => {
    h = await startHarness();
    ws = await h.workspace();
    client = new TaskTrackerClient({ baseUrl: `${h.base}/v1`, apiKey: ws.token });
    project = await client.projects.create({ name: 'Web site', key: 'WEB' });
  });
  afterAll(() => h.close());

  describe('SDK: ETag and ifMatch', () => {
    it('tasks: update, move and delete with ifMatch succeed on the current ETag and fail with 412 on a stale one', async () => {
      const created = await client.tasks.create({ projectId: project.id, title: 'Ship it' });
      const { data, etag } = await client.tasks.getWithEtag(created.key);
      expect(data.id).toBe(created.id);
      expect(etag).toMatch(/^"\d+"$/);

      const updated = await client.tasks.update(created.key, { title: 'Ship it today' }, { ifMatch: etag });
      expect(updated.title).toBe('Ship it today');
      const stale = await preconditionFailed(client.tasks.update(created.key, { title: 'Lost update' }, { ifMatch: etag }));
      expect(stale.message).toContain('version');
      await preconditionFailed(client.tasks.move(created.key, { statusId: created.statusId, position: 0 }, { ifMatch: etag }));
      await preconditionFailed(client.tasks.delete(created.key, { ifMatch: etag }));
      expect((await client.tasks.get(created.key)).title).toBe('Ship it today');

      const fresh = await client.tasks.getWithEtag(created.key);
      expect(fresh.etag).not.toBe(etag);
      const moved = await client.tasks.move(created.key, { statusId: created.statusId, position: 0 }, { ifMatch: fresh.etag });
      expect(moved.statusId).toBe(created.statusId);
      const last = await client.tasks.getWithEtag(created.key);
      await client.tasks.delete(created.key, { ifMatch: last.etag, headers: { 'x-extra': 'kept' } });
      await expect(client.tasks.get(created.key)).rejects.toMatchObject({ status: 404 });
    });

    it('without ifMatch the writes are unconditional, as before', async () => {
      const created = await client.tasks.create({ projectId: project.id, title: 'Plain' });
      const { etag } = await client.tasks.getWithEtag(created.id);
      await client.tasks.update(created.id, { title: 'Changed by someone else' });
      expect((await client.tasks.update(created.id, { title: 'Mine' })).title).toBe('Mine');
      expect((await client.tasks.getWithEtag(created.id)).etag).not.toBe(etag);
    });

    it('pages and projects: getWithEtag and update with ifMatch', async () => {
      const space = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Engineering' })).body.data;
      const doc = await client.docs.create({ spaceId: space.id, title: 'Runbook', text: 'Step one' });
      const page = await client.docs.getWithEtag(doc.id);
      expect(page.data.title).toBe('Runbook');
      await client.docs.update(doc.id, { title: 'Runbook v2' }, { ifMatch: page.etag });
      await preconditionFailed(client.docs.update(doc.id, { title: 'Lost update' }, { ifMatch: page.etag }));
      expect((await client.docs.get(doc.id)).title).toBe('Runbook v2');

      const p = await client.projects.getWithEtag(project.id);
      expect(p.data.boards.length).toBeGreaterThan(0);
      await client.projects.update(project.id, { name: 'Web site 2' }, { ifMatch: p.etag });
      await preconditionFailed(client.projects.update(project.id, { name: 'Lost update' }, { ifMatch: p.etag }));
      expect((await client.projects.get(project.id)).name).toBe('Web site 2');
    });
  });
});

// The tests of apps/api/src/sdk-operator.int.test.ts, folded in here (one test process and one module load for them all); their setup and state stay inside this describe.
describe('sdk-operator', () => {
  // The SDK's operator client against the real operator API: a workspace built from nothing, then the REST client on its keys.
  let h: Harness;
  let op: OperatorClient;

  const codeOf = (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (e instanceof ApiError ? e.code : String(e)));

  beforeAll(async () => {
    h = await startHarness();
    op = new OperatorClient({ baseUrl: `${h.base}/admin/v1`, adminToken: h.api.adminToken });
  });
  afterAll(() => h.close());

  describe('OperatorClient', () => {
    it('refuses a wrong operator token with unauthorized', async () => {
      expect(await codeOf(new OperatorClient({ baseUrl: h.base, adminToken: 'wrong' }).workspaces.create({ name: 'x' }))).toBe('unauthorized');
    });

    it('sets up a workspace, people and keys, and the REST client works on them', async () => {
      const ws = await op.workspaces.create({ name: 'Acme' });
      expect(ws).toMatchObject({ name: 'Acme', plan: 'business', timezone: 'Europe/Moscow', memberKeysEnabled: true });
      const admin = await op.users.create(ws.id, { name: 'Ada Admin', login: 'Ada', isAdmin: true });
      const member = await op.users.create(ws.id, { name: 'Max Member', login: 'max', role: 'Designer' });
      expect(admin.login).toBe('ada');
      const team = await op.teams.create(ws.id, { name: 'Core', leadId: admin.id, memberIds: [admin.id, member.id] });
      expect(team.memberIds.sort()).toEqual([admin.id, member.id].sort());

      const adminKey = await op.keys.issue(admin.id, { scopes: ['projects:write', 'tasks:read', 'tasks:write', 'docs:read', 'meetings:read'] });
      const rest = new TaskTrackerClient({ baseUrl: h.base, apiKey: adminKey.token });
      expect((await rest.me()).user.id).toBe(admin.id);
      expect((await rest.teams.list()).data.map((t) => t.id)).toEqual([team.id]);

      const memberKey = await op.keys.issue(member.id, { scopes: ['tasks:read'] });
      const memberRest = new TaskTrackerClient({ baseUrl: h.base, apiKey: memberKey.token });
      expect((await memberRest.me()).key.scopes).toEqual(['tasks:read']);
      await op.workspaces.update(ws.id, { memberKeysEnabled: false });
      expect(await codeOf(memberRest.me())).toBe('api_disabled');
      await op.workspaces.update(ws.id, { memberKeysEnabled: true });
      expect(await op.keys.update(memberKey.id, { expiresAt: Date.now() - 1000 })).toMatchObject({ id: memberKey.id });
      expect(await codeOf(memberRest.me())).toBe('key_expired');

      const spare = await op.keys.issue(member.id);
      const spareRest = new TaskTrackerClient({ baseUrl: h.base, apiKey: spare.token });
      expect(await codeOf(spareRest.me())).toBe('ok');
      await op.keys.revoke(spare.id);
      expect(await codeOf(spareRest.me())).toBe('invalid_key');

      const other = await op.keys.issue(member.id);
      await op.users.delete(member.id);
      expect(await codeOf(new TaskTrackerClient({ baseUrl: h.base, apiKey: other.token }).me())).toBe('invalid_key');
    });

    it('closes boards, archives tasks, adds attachments and automations, and records docs and meetings', async () => {
      const ws = await op.workspaces.create({ name: 'Fixtures' });
      const boss = await op.users.create(ws.id, { name: 'Boss', login: 'boss', isAdmin: true });
      const worker = await op.users.create(ws.id, { name: 'Worker', login: 'worker' });
      const rest = new TaskTrackerClient({ baseUrl: h.base, apiKey: (await op.keys.issue(boss.id, { scopes: ['projects:write', 'tasks:read', 'tasks:write', 'docs:read', 'meetings:read'] })).token });
      const workerRest = new TaskTrackerClient({ baseUrl: h.base, apiKey: (await op.keys.issue(worker.id, { scopes: ['tasks:read'] })).token });
      const project = await rest.projects.create({ name: 'Ops', key: 'OPS' });
      const board = project.boards[0]!;

      expect(await op.boards.setAccess(board.id, { memberIds: [boss.id] })).toMatchObject({ id: board.id, memberIds: [boss.id] });
      expect(await codeOf(workerRest.boards.get(board.id))).toBe('not_found');
      await op.boards.setAccess(board.id, { memberIds: null });
      expect((await workerRest.boards.get(board.id)).id).toBe(board.id);

      const rule = await op.boards.addAutomation(board.id, { trigger: 'task_created', actions: [{ type: 'add_labels', labels: ['triage'] }] });
      expect((await op.boards.automations(board.id)).map((a) => a.id)).toEqual([rule.id]);
      const task = await rest.tasks.create({ boardId: board.id, title: 'Automated', assigneeIds: [worker.id] });
      await h.runtime.jobs.drain();
      expect((await rest.tasks.get(task.key)).labels).toEqual(['triage']);
      await op.boards.deleteAutomation(rule.id);
      expect(await op.boards.automations(board.id)).toEqual([]);
      expect((await op.users.notifications(worker.id, { unread: true })).map((n) => [n.kind, n.taskId])).toEqual([['assigned', task.id]]);

      expect(await op.tasks.addAttachment(task.id, { name: 'spec.pdf', size: 1024, type: 'application/pdf' })).toMatchObject({ name: 'spec.pdf', size: 1024 });
      expect((await op.tasks.archive(task.id)).archived).toBe(true);
      expect(await codeOf(rest.tasks.update(task.key, { title: 'x' }))).toBe('archived');
      expect((await op.tasks.restore(task.id)).archived).toBe(false);
      expect((await rest.tasks.update(task.key, { title: 'Back' })).title).toBe('Back');

      const space = await op.docSpaces.create(ws.id, { name: 'Runbooks' });
      expect((await rest.docs.spaces()).data.map((s) => s.id)).toEqual([space.id]);
      const folder = await op.meetingFolders.create(ws.id, { name: 'Ops syncs' });
      const meeting = await op.meetings.create(ws.id, {
        title: 'Incident review', folderId: folder.id, createdBy: boss.id, startedAt: Date.UTC(2026, 4, 4, 10),
        summary: { overview: 'Root cause found', actionItems: [{ text: 'Add alerting', taskId: task.key }] },
      });
      expect((await rest.meetings.get(meeting.id)).summary?.actionItems).toEqual([{ text: 'Add alerting', owner: '', due: null, taskId: task.id }]);
      expect(await codeOf(op.tasks.archive('missing'))).toBe('not_found');
    });
  });
});
