import { ApiError, TaskTrackerClient, type Board, type ProjectWithBoards, type Task } from '@tt/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quickstart } from '../../../packages/sdk/examples/quickstart.js';
import { startHarness, type Harness, type TestWorkspace } from './test/harness.js';

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
    expect(await client.tasks.get('WEB-2')).toEqual(task);

    const changed = await client.tasks.update(task.key, { title: 'Landing page v2', labels: ['web'], dueDate: null });
    expect(changed).toMatchObject({ title: 'Landing page v2', labels: ['web'], dueDate: null });
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
