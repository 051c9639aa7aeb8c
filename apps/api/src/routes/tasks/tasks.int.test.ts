import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, type TestWorkspace } from '../../test/harness.js';

// This file's own tests; their setup and state stay inside this describe.
describe('tasks', () => {
  let h: Harness;
  let ws: TestWorkspace;
  let project: any;
  let board: any;

  beforeAll(async () => {
    h = await startHarness();
    ws = await h.workspace();
    project = (await h.call(ws.token, 'POST', '/projects', { name: 'Tasks', key: 'TSK', template: 'scrum' })).body.data;
    board = project.boards[0];
  });
  afterAll(() => h.close());

  const create = (body: Record<string, unknown>, token = ws.token) => h.call(token, 'POST', '/tasks', { boardId: board.id, ...body });

  describe('task creation', () => {
    it('applies the defaults and returns the full form', async () => {
      const bob = await ws.user({ login: 'bob' });
      const r = await create({ title: 'First', assigneeIds: [bob.id], labels: ['new-label'], checklist: [{ text: 'a' }, { text: 'b', done: true }] });
      expect(r.status).toBe(201);
      const t = r.body.data;
      expect(t).toMatchObject({
        key: expect.stringMatching(/^TSK-\d+$/), projectId: project.id, boardId: board.id, statusId: board.statuses[0].id,
        status: { name: board.statuses[0].name, category: 'todo' }, type: 'task', priority: 'medium', reporterId: ws.adminUser.id,
        assigneeId: bob.id, assigneeIds: [bob.id], labels: ['new-label'], dueDate: null, parentId: null, timeSpentSeconds: 0,
        archived: false, doneAt: null, archivedAt: null, description: '', descriptionText: '', subtaskIds: [], timeLogs: [], attachments: [], docIds: [],
      });
      expect(t.checklist).toEqual([
        { id: expect.any(String), text: 'a', done: false },
        { id: expect.any(String), text: 'b', done: true },
      ]);
      expect((await h.call(ws.token, 'GET', '/labels')).body.data).toContain('new-label');
    });

    it('projectId uses the first board; statusId must be on the board', async () => {
      const r = await h.call(ws.token, 'POST', '/tasks', { title: 'By project', projectId: project.id });
      expect(r.body.data.boardId).toBe(board.id);
      const other = (await h.call(ws.token, 'POST', '/projects', { name: 'O', key: 'OTH' })).body.data;
      const bad = await create({ title: 'x', statusId: other.boards[0].statuses[0].id });
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toContain('statusId');
      expect((await create({ title: 'x', assigneeIds: ['usr_nope'] })).body.error.message).toContain('assigneeIds');
    });

    it('numbers keys without gaps or duplicates under concurrent creation', async () => {
      const p = (await h.call(ws.token, 'POST', '/projects', { name: 'Conc', key: 'CON' })).body.data;
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => h.call(ws.token, 'POST', '/tasks', { title: `c${i}`, boardId: p.boards[0].id })),
      );
      expect(results.every((r) => r.status === 201)).toBe(true);
      const keys = results.map((r) => Number(r.body.data.key.split('-')[1])).sort((a, b) => a - b);
      expect(keys).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    });

    it('sanitizes HTML and derives text; accepts descriptionText instead', async () => {
      const r = await create({ title: 'html', description: '<p onclick="x()">Hi <script>alert(1)</script><b>there</b></p><style>p{}</style><iframe src="x"></iframe>' });
      expect(r.body.data.description).toBe('<p>Hi <b>there</b></p>');
      expect(r.body.data.descriptionText).toBe('Hi there');
      const t = await create({ title: 'text', descriptionText: 'line 1\nline <2>' });
      expect(t.body.data.description).toBe('<p>line 1<br />line &lt;2&gt;</p>');
      expect(t.body.data.descriptionText).toBe('line 1\nline <2>');
    });

    it('queues notification and automation jobs in the outbox with the commit, none on rollback', async () => {
      const outbox = async () => Number((await h.runtime.db('outbox').count({ n: '*' }).first())!.n);
      const newest = async (n: number) => (await h.runtime.db('outbox').orderBy('id', 'desc').limit(n)).map((r: any) => r);
      const u = await ws.user();
      // A board without task_created rules: only the notification (an automation job would find nothing to run).
      let before = await outbox();
      await create({ title: 'notify', assigneeIds: [u.id] });
      expect(await outbox()).toBe(before + 1);
      const [notify] = await newest(1);
      expect(notify).toMatchObject({ name: 'notify.assigned', payload: { userIds: [u.id] } });
      // With a rule on the board, the automation job too (a board of its own, so the rule touches no other test).
      const ruled = (await h.call(ws.token, 'POST', '/projects', { name: 'Ruled', key: 'RLD' })).body.data.boards[0];
      expect((await h.op('POST', `/boards/${ruled.id}/automations`, { trigger: 'task_created', actions: [{ type: 'add_labels', labels: ['auto'] }] })).status).toBe(201);
      before = await outbox();
      const t = (await create({ title: 'ruled', boardId: ruled.id, assigneeIds: [u.id] })).body.data;
      const rows = await newest(2);
      expect(await outbox()).toBe(before + 2);
      expect(rows.map((r: any) => r.name).sort()).toEqual(['automations.task_created', 'notify.assigned']);
      expect(rows.find((r: any) => r.name === 'automations.task_created').payload).toMatchObject({ taskId: t.id, boardId: ruled.id });
      before = await outbox();
      await create({ title: 'fails', assigneeIds: [u.id], parentId: 'task_nope' });
      expect(await outbox()).toBe(before);
    });

    it('a create planned on the board as the process last read it commits only on what still holds, else is planned afresh', async () => {
      // A board of its own, read once by a create (the process keeps it), then changed behind that memory.
      const p = (await h.call(ws.token, 'POST', '/projects', { name: 'Kept', key: 'KPT', template: 'scrum' })).body.data;
      const b = p.boards[0];
      const tasksOn = async () => Number((await h.runtime.db('tasks').where({ board_id: b.id }).count({ n: '*' }).first())!.n);
      const seq = async () => Number((await h.runtime.db('projects').where({ id: p.id }).first()).task_seq);
      const entries = async () => Number((await h.runtime.db('activity').where({ board_id: b.id }).count({ n: '*' }).first())!.n);
      const jobs = async () => Number((await h.runtime.db('outbox').count({ n: '*' }).first())!.n);
      const make = (body: Record<string, unknown>) => h.call(ws.token, 'POST', '/tasks', { boardId: b.id, ...body });
      expect((await make({ title: 'reads the board' })).status).toBe(201);
      expect((await make({ title: 'from memory' })).body.data).toMatchObject({ key: 'KPT-2', statusId: b.statuses[0].id });

      // A column added since: a create naming it is planned again on a fresh read, not refused on the old columns.
      expect((await h.call(ws.token, 'POST', `/boards/${b.id}/statuses`, { name: 'Later', category: 'progress' })).status).toBe(201);
      const later = (await h.call(ws.token, 'GET', `/boards/${b.id}`)).body.data.statuses.at(-1);
      const onLater = (await make({ title: 'new column' })).body.data;
      expect(onLater.key).toBe('KPT-3');
      const named = await make({ title: 'named column', statusId: later.id });
      expect(named.status).toBe(201);
      expect(named.body.data).toMatchObject({ statusId: later.id, status: { name: 'Later', category: 'progress' } });

      // A task_created rule added since: the create queues the automation job, which the memory said it need not.
      await make({ title: 'kept again' });
      expect((await h.op('POST', `/boards/${b.id}/automations`, { trigger: 'task_created', actions: [{ type: 'add_labels', labels: ['ruled'] }] })).status).toBe(201);
      const last = Number((await h.runtime.db('outbox').max({ id: 'id' }).first())?.id ?? 0);
      const ruled = (await make({ title: 'ruled' })).body.data;
      const queued = await h.runtime.db('outbox').where('id', '>', last);
      expect(queued.map((r: any) => r.name)).toEqual(['automations.task_created']);
      expect(queued[0].payload).toMatchObject({ taskId: ruled.id, boardId: b.id });

      // An assignee deleted since: 404 naming assigneeIds, and nothing of the create is written.
      const gone = await ws.user();
      expect((await make({ title: 'to someone', assigneeIds: [gone.id] })).status).toBe(201);
      expect((await h.op('DELETE', `/users/${gone.id}`)).status).toBe(204);
      await h.runtime.jobs.drain(); // what the deletion queued (its tasks' assignees) is done before the counts
      const [n, number, logged, queuedBefore] = [await tasksOn(), await seq(), await entries(), await jobs()];
      const refused = await make({ title: 'to the deleted', assigneeIds: [gone.id], labels: ['never-made'] });
      expect(refused.status).toBe(404);
      expect(refused.body.error.message).toContain('assigneeIds');
      expect([await tasksOn(), await seq(), await entries(), await jobs()]).toEqual([n, number, logged, queuedBefore]);
      expect((await h.call(ws.token, 'GET', '/labels')).body.data).not.toContain('never-made');

      // The board closed to the key's user since: 404 for the board, though memory had it open.
      expect((await make({ title: 'open still' })).status).toBe(201);
      const member = await ws.user();
      const mk = await ws.key(member.id);
      expect((await h.call(mk.token, 'POST', '/tasks', { title: 'member, open', boardId: b.id })).status).toBe(201);
      expect((await h.op('PUT', `/boards/${b.id}/access`, { memberIds: [ws.adminUser.id] })).status).toBe(200);
      const closed = await h.call(mk.token, 'POST', '/tasks', { title: 'member, closed', boardId: b.id });
      expect(closed.status).toBe(404);
      expect(closed.body.error.message).toContain('boardId');
      // The numbers went on without a gap: nothing refused took one.
      const keys = (await h.call(ws.token, 'GET', `/tasks?projectId=${p.id}&limit=100`)).body.data.map((t: any) => t.key);
      expect(keys.map((k: string) => Number(k.split('-')[1])).sort((x: number, y: number) => x - y)).toEqual(keys.map((_: string, i: number) => i + 1));
    });
    it('a PATCH planned on the task as the process last had it commits only on what still holds, else is planned afresh', async () => {
      const p = (await h.call(ws.token, 'POST', '/projects', { name: 'Kept patch', key: 'KPP', template: 'scrum' })).body.data;
      const b = p.boards[0];
      const t = (await h.call(ws.token, 'POST', '/tasks', { title: 'kept', boardId: b.id })).body.data;
      const row = () => h.runtime.db('tasks').where({ id: t.id }).first();
      const entries = async () => (await h.call(ws.token, 'GET', `/tasks/${t.key}/activity`)).body.data;
      // Read once: the process keeps it. Then changed behind that memory, as another replica would.
      expect((await h.call(ws.token, 'GET', `/tasks/${t.key}`)).status).toBe(200);
      await h.runtime.db('tasks').where({ id: t.id }).update({ title: 'elsewhere', version: h.runtime.db.raw('version + 1') });
      const renamed = await h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { title: 'mine' });
      expect(renamed.status).toBe(200);
      // The entry says what the change did to the task as it was, not as memory had it.
      expect((await entries())[0]).toMatchObject({ action: 'task.updated', changes: [{ field: 'title', from: 'elsewhere', to: 'mine' }] });
      expect(renamed.headers.get('etag')).toBe(`"${(await row()).version}"`);

      // If-Match: a version memory holds but the task has left is refused with the current one, and nothing is written.
      const seen = Number(JSON.parse(renamed.headers.get('etag')!));
      await h.runtime.db('tasks').where({ id: t.id }).update({ version: h.runtime.db.raw('version + 1') });
      const stale = await h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { title: 'lost update' }, { 'if-match': `"${seen}"` });
      expect(stale.status).toBe(412);
      expect(stale.body.error.message).toContain(`version ${seen + 1}`);
      expect((await row()).title).toBe('mine');
      const current = await h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { priority: 'high' }, { 'if-match': `"${seen + 1}"` });
      expect(current.status).toBe(200);
      expect(current.body.data).toMatchObject({ title: 'mine', priority: 'high' });

      // The board closed to a member since the member's key last read the task: 404, and nothing is written.
      const member = await ws.user();
      const mk = await ws.key(member.id);
      const [logged] = [(await entries()).length + 1, await h.call(mk.token, 'PATCH', `/tasks/${t.key}`, { priority: 'low' })];
      const before = await row();
      // (Nothing reads the task between the change of access and the PATCH: a read would refresh the memory.)
      expect((await h.op('PUT', `/boards/${b.id}/access`, { memberIds: [ws.adminUser.id] })).status).toBe(200);
      const closed = await h.call(mk.token, 'PATCH', `/tasks/${t.key}`, { title: 'behind a closed board' });
      expect(closed.status).toBe(404);
      expect(await row()).toEqual(before);
      expect((await entries()).length).toBe(logged);

      // Archived and deleted behind memory: the fresh read gives the answer.
      expect((await h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { priority: 'medium' })).status).toBe(200);
      await h.runtime.db('tasks').where({ id: t.id }).update({ archived_at: Date.now(), version: h.runtime.db.raw('version + 1') });
      expect((await h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { priority: 'high' })).body.error.code).toBe('archived');
      await h.runtime.db('tasks').where({ id: t.id }).delete();
      expect((await h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { priority: 'high' })).status).toBe(404);
    });
    it('a move planned on the task and board as the process last had them commits only on what still holds, else is planned afresh', async () => {
      const p = (await h.call(ws.token, 'POST', '/projects', { name: 'Kept move', key: 'KPM', template: 'scrum' })).body.data;
      const b = p.boards[0];
      const [todo, doing] = b.statuses;
      const t = (await h.call(ws.token, 'POST', '/tasks', { title: 'kept move', boardId: b.id })).body.data;
      const row = () => h.runtime.db('tasks').where({ id: t.id }).first();
      const moves = async () => (await h.call(ws.token, 'GET', `/tasks/${t.key}/activity`)).body.data.filter((e: any) => e.action === 'task.moved');
      expect((await h.call(ws.token, 'POST', `/tasks/${t.key}/move`, { statusId: doing.id })).status).toBe(201);
      // A column renamed behind the memory of the board: the entry names the column as it is now.
      await h.runtime.db('statuses').where({ id: todo.id }).update({ name: 'Icebox' });
      const back = await h.call(ws.token, 'POST', `/tasks/${t.key}/move`, { statusId: todo.id });
      expect(back.status).toBe(201);
      expect(back.body.data).toMatchObject({ statusId: todo.id, status: { name: 'Icebox' }, position: 0 });
      // (As stored: a read of the log shows columns as they are now.)
      const stored = await h.runtime.db('activity').where({ task_id: t.id, action: 'task.moved' }).orderBy('id', 'desc').first();
      expect(typeof stored.changes === 'string' ? JSON.parse(stored.changes) : stored.changes).toEqual([
        { field: 'status', from: { id: doing.id, name: doing.name }, to: { id: todo.id, name: 'Icebox' } },
      ]);

      // To the top: above the column's first task, which stays where it was.
      const other = (await h.call(ws.token, 'POST', '/tasks', { title: 'first in doing', boardId: b.id, statusId: doing.id })).body.data;
      const moved = await h.call(ws.token, 'POST', `/tasks/${t.key}/move`, { statusId: doing.id });
      expect(moved.body.data.position).toBe(0);
      expect((await h.call(ws.token, 'GET', `/tasks/${other.key}?include=position`)).body.data.position).toBe(1);

      // The board closed to a member since the member last moved the task: 404, and nothing is written.
      const member = await ws.user();
      const mk = await ws.key(member.id);
      expect((await h.call(mk.token, 'POST', `/tasks/${t.key}/move`, { statusId: todo.id })).status).toBe(201);
      const logged = (await moves()).length;
      const before = await row();
      expect((await h.op('PUT', `/boards/${b.id}/access`, { memberIds: [ws.adminUser.id] })).status).toBe(200);
      expect((await h.call(mk.token, 'POST', `/tasks/${t.key}/move`, { statusId: doing.id })).status).toBe(404);
      expect(await row()).toEqual(before);
      expect((await moves()).length).toBe(logged);
    });

    it('a comment planned on the task as the process last had it is written only while the task and its board hold', async () => {
      const p = (await h.call(ws.token, 'POST', '/projects', { name: 'Kept comment', key: 'KPC', template: 'scrum' })).body.data;
      const b = p.boards[0];
      const t = (await h.call(ws.token, 'POST', '/tasks', { title: 'kept comment', boardId: b.id })).body.data;
      const comments = async () => Number((await h.runtime.db('comments').where({ task_id: t.id }).count({ n: '*' }).first())!.n);
      const member = await ws.user();
      const mk = await ws.key(member.id);
      expect((await h.call(mk.token, 'POST', `/tasks/${t.key}/comments`, { text: 'first' })).status).toBe(201);
      // Archived behind memory: 409 from the fresh read, nothing written.
      await h.runtime.db('tasks').where({ id: t.id }).update({ archived_at: Date.now(), version: h.runtime.db.raw('version + 1') });
      expect((await h.call(mk.token, 'POST', `/tasks/${t.key}/comments`, { text: 'on archived' })).body.error.code).toBe('archived');
      await h.runtime.db('tasks').where({ id: t.id }).update({ archived_at: null, version: h.runtime.db.raw('version + 1') });
      expect((await h.call(mk.token, 'POST', `/tasks/${t.key}/comments`, { text: 'restored' })).status).toBe(201);
      // The board closed to the member behind memory: 404, and neither the comment, its entry nor its job is written.
      const [n, before, jobs] = [await comments(), await h.runtime.db('tasks').where({ id: t.id }).first(), Number((await h.runtime.db('outbox').count({ n: '*' }).first())!.n)];
      expect((await h.op('PUT', `/boards/${b.id}/access`, { memberIds: [ws.adminUser.id] })).status).toBe(200);
      expect((await h.call(mk.token, 'POST', `/tasks/${t.key}/comments`, { text: 'behind a closed board' })).status).toBe(404);
      expect([await comments(), await h.runtime.db('tasks').where({ id: t.id }).first(), Number((await h.runtime.db('outbox').count({ n: '*' }).first())!.n)]).toEqual([n, before, jobs]);
    });

    it('a create by project or with a parent planned on what the process last had commits only on what still holds', async () => {
      const p = (await h.call(ws.token, 'POST', '/projects', { name: 'Kept first', key: 'KPF', template: 'scrum' })).body.data;
      const [b1, b2] = [p.boards[0], (await h.call(ws.token, 'POST', '/boards', { projectId: p.id, name: 'Second', template: 'bugs' })).body.data];
      const member = await ws.user();
      const mk = await ws.key(member.id);
      const counts = async () => [
        Number((await h.runtime.db('tasks').where({ project_id: p.id }).count({ n: '*' }).first())!.n),
        Number((await h.runtime.db('projects').where({ id: p.id }).first()).task_seq),
        Number((await h.runtime.db('outbox').count({ n: '*' }).first())!.n),
      ];
      // The first board closed to the member: by project, the member's task goes on the second, twice (the second
      // time from memory).
      expect((await h.op('PUT', `/boards/${b1.id}/access`, { memberIds: [ws.adminUser.id] })).status).toBe(200);
      for (const title of ['second board', 'second board again']) {
        expect((await h.call(mk.token, 'POST', '/tasks', { title, projectId: p.id })).body.data.boardId).toBe(b2.id);
      }
      // The first board opened to the member since: it is the first open to them, memory notwithstanding.
      expect((await h.op('PUT', `/boards/${b1.id}/access`, { memberIds: null })).status).toBe(200);
      const onFirst = (await h.call(mk.token, 'POST', '/tasks', { title: 'first board', projectId: p.id })).body.data;
      expect(onFirst.boardId).toBe(b1.id);

      // A parent kept by a read, then its board closed to the member: 404 naming parentId, and nothing written.
      const parent = (await h.call(ws.token, 'POST', '/tasks', { title: 'parent', boardId: b2.id })).body.data;
      expect((await h.call(mk.token, 'GET', `/tasks/${parent.key}`)).status).toBe(200);
      expect((await h.call(mk.token, 'POST', '/tasks', { title: 'child', boardId: b1.id, parentId: parent.id })).status).toBe(201);
      const before = await counts();
      const version = (await h.runtime.db('tasks').where({ id: parent.id }).first()).version;
      expect((await h.op('PUT', `/boards/${b2.id}/access`, { memberIds: [ws.adminUser.id] })).status).toBe(200);
      const refused = await h.call(mk.token, 'POST', '/tasks', { title: 'hidden parent', boardId: b1.id, parentId: parent.id });
      expect(refused.status).toBe(404);
      expect(refused.body.error.message).toContain('parentId');
      expect(await counts()).toEqual(before);
      expect((await h.runtime.db('tasks').where({ id: parent.id }).first()).version).toBe(version);
      // A parent changed behind memory (another replica): the create is planned again and moves the version on from there.
      await h.runtime.db('tasks').where({ id: parent.id }).update({ title: 'renamed elsewhere', version: h.runtime.db.raw('version + 1') });
      const child = await h.call(ws.token, 'POST', '/tasks', { title: 'child 2', boardId: b2.id, parentId: parent.id });
      expect(child.status).toBe(201);
      const after = await h.call(ws.token, 'GET', `/tasks/${parent.key}`);
      expect(after.headers.get('etag')).toBe(`"${version + 2}"`);
      expect(after.body.data.subtaskIds).toHaveLength(2);
    });

  });

  describe('reading, filtering and paging', () => {
    it('GET by id and by key', async () => {
      const t = (await create({ title: 'by key' })).body.data;
      expect((await h.call(ws.token, 'GET', `/tasks/${t.key}`)).body.data.id).toBe(t.id);
      expect((await h.call(ws.token, 'GET', `/tasks/${t.key.toLowerCase()}`)).body.data.id).toBe(t.id);
      expect((await h.call(ws.token, 'GET', `/tasks/${t.id}`)).body.data.key).toBe(t.key);
      expect((await h.call(ws.token, 'GET', '/tasks/TSK-99999')).status).toBe(404);
    });

    it('label totals stay exact through creates, label edits, moves, archiving and deletes (kept as counters)', async () => {
      const p = (await h.call(ws.token, 'POST', '/projects', { name: 'Labels', key: 'LBC', template: 'scrum' })).body.data;
      const todo = p.boards[0].statuses[0];
      const doing = p.boards[0].statuses.find((st: any) => st.category === 'progress');
      const mk = (labels: string[]) => h.call(ws.token, 'POST', '/tasks', { boardId: p.boards[0].id, title: labels.join(' ') || 'none', labels }).then((r) => r.body.data);
      const x = await mk(['ux', 'api']);
      const y = await mk(['api']);
      const z = await mk(['api', 'ux', 'db']);
      await mk([]);
      // Each total is checked against the rows it pages over (limit 100 holds them all).
      const total = async (q: string) => {
        const r = await h.call(ws.token, 'GET', `/tasks?projectId=${p.id}&limit=100&${q}`);
        expect(r.status, q).toBe(200);
        expect(r.body.total, q).toBe(r.body.data.length);
        return r.body.total;
      };
      expect([await total('label=api'), await total('label=ux,api'), await total('label=api,ux,db'), await total('label=nope')]).toEqual([3, 2, 1, 0]);
      await h.call(ws.token, 'PATCH', `/tasks/${y.id}`, { labels: ['api', 'ux'] });
      expect(await total('label=ux,api')).toBe(3);
      await h.call(ws.token, 'POST', `/tasks/${x.id}/move`, { statusId: doing.id });
      expect([await total(`label=ux&statusId=${doing.id}`), await total(`label=ux&statusId=${todo.id}`), await total('label=ux&category=progress')]).toEqual([1, 2, 1]);
      await h.op('POST', `/tasks/${z.id}/archive`);
      expect([await total('label=db'), await total('label=db&archived=true'), await total('label=api&archived=all')]).toEqual([0, 1, 3]);
      await h.op('POST', `/tasks/${z.id}/restore`);
      await h.call(ws.token, 'DELETE', `/tasks/${y.id}`);
      expect([await total('label=api'), await total('label=db')]).toEqual([2, 1]);
      // With a type or priority the total is counted on the rows, and is as exact.
      expect(await total('label=api&type=task')).toBe(2);
    });

    it("a person's totals stay exact through creates, assignee edits, moves, archiving, deletes and closed boards (kept as counters)", async () => {
      const p = (await h.call(ws.token, 'POST', '/projects', { name: 'People', key: 'PPC', template: 'scrum' })).body.data;
      const board = p.boards[0];
      const doing = board.statuses.find((st: any) => st.category === 'progress');
      const [ann, bob] = [await ws.user(), await ws.user()];
      const mk = (assigneeIds: string[]) => h.call(ws.token, 'POST', '/tasks', { boardId: board.id, title: 'people', assigneeIds }).then((r) => r.body.data);
      const x = await mk([ann.id, bob.id]);
      const y = await mk([ann.id]);
      const z = await mk([bob.id]);
      await mk([]);
      // Each total is checked against the rows it pages over (limit 100 holds them all), with and without the project.
      const total = async (q: string, token = ws.token) => {
        const r = await h.call(token, 'GET', `/tasks?projectId=${p.id}&limit=100&${q}`);
        expect(r.status, q).toBe(200);
        expect(r.body.total, q).toBe(r.body.data.length);
        return r.body.total;
      };
      const totals = () => Promise.all([total(`assigneeId=${ann.id}`), total(`assigneeId=${bob.id}`), total(`assigneeId=${ann.id}&category=progress`)]);
      expect(await totals()).toEqual([2, 2, 0]);
      await h.call(ws.token, 'PATCH', `/tasks/${y.id}`, { assigneeIds: [bob.id, ann.id] });
      await h.call(ws.token, 'PATCH', `/tasks/${z.id}`, { assigneeIds: [ann.id] });
      expect(await totals()).toEqual([3, 2, 0]);
      await h.call(ws.token, 'POST', `/tasks/${x.id}/move`, { statusId: doing.id });
      expect(await totals()).toEqual([3, 2, 1]);
      await h.op('POST', `/tasks/${x.id}/archive`);
      expect([...(await totals()), await total(`assigneeId=${ann.id}&archived=true`), await total(`assigneeId=${bob.id}&archived=all`)]).toEqual([2, 1, 0, 1, 2]);
      await h.op('POST', `/tasks/${x.id}/restore`);
      await h.call(ws.token, 'DELETE', `/tasks/${y.id}`);
      expect(await totals()).toEqual([2, 1, 1]);
      // "My open tasks" and MCP's search count the same way: the caller's own key, a category.
      const annKey = (await ws.key(ann.id)).token;
      const mine = await h.call(annKey, 'GET', `/tasks?assigneeId=me&category=progress&projectId=${p.id}`);
      expect([mine.body.total, mine.body.data.map((t: any) => t.id)]).toEqual([1, [x.id]]);
      // A closed board the caller is not on: neither its rows nor its counts.
      expect((await h.op('PUT', `/boards/${board.id}/access`, { memberIds: [bob.id] })).status).toBe(200);
      expect(await total(`assigneeId=${ann.id}`, annKey)).toBe(0);
      expect((await h.op('PUT', `/boards/${board.id}/access`, { memberIds: null })).status).toBe(200);
    });

    it('every filter, combined, with exact totals and no descriptions in lists', async () => {
      const p = (await h.call(ws.token, 'POST', '/projects', { name: 'Filter', key: 'FIL' })).body.data;
      const b = p.boards[0];
      const ann = await ws.user({ login: 'ann' });
      const mk = (body: Record<string, unknown>) => h.call(ws.token, 'POST', '/tasks', { boardId: b.id, ...body }).then((r) => r.body.data);
      const a = await mk({ title: 'Login page broken', type: 'bug', priority: 'high', assigneeIds: [ann.id], labels: ['ui', 'urgent'], dueDate: '2026-12-01', descriptionText: 'The submit button does nothing' });
      const c = await mk({ title: 'Payment flow', type: 'story', priority: 'low', labels: ['ui'], dueDate: '2027-01-15' });
      const d = await mk({ title: 'Child of payment', parentId: c.id });
      const cDone = (await h.call(ws.token, 'PATCH', `/tasks/${c.id}`, { statusId: b.statuses[2].id })).body.data;
      const ids = async (q: string) => {
        const r = await h.call(ws.token, 'GET', `/tasks?projectId=${p.id}&${q}`);
        expect(r.status, q).toBe(200);
        expect(r.body.total).toBe(r.body.data.length);
        return r.body.data.map((t: any) => t.id);
      };
      expect(await ids('')).toEqual([a.id, c.id, d.id]);
      expect(await ids(`boardId=${b.id}&statusId=${b.statuses[0].id}`)).toEqual([a.id, d.id]);
      expect(await ids('category=done')).toEqual([c.id]);
      expect(await ids(`assigneeId=${ann.id}`)).toEqual([a.id]);
      expect(await ids('assigneeId=none')).toEqual([c.id, d.id]);
      expect(await ids(`reporterId=${ws.adminUser.id}`)).toHaveLength(3);
      expect(await ids('type=bug,story')).toEqual([a.id, c.id]);
      expect(await ids('priority=high')).toEqual([a.id]);
      expect(await ids('label=ui,urgent')).toEqual([a.id]);
      expect(await ids('label=ui')).toEqual([a.id, c.id]);
      expect(await ids(`parentId=${c.id}`)).toEqual([d.id]);
      expect(await ids(`parentId=${c.key}`)).toEqual([d.id]);
      expect(await ids('parentId=none')).toEqual([a.id, c.id]);
      expect(await ids('dueBefore=2026-12-31')).toEqual([a.id]);
      expect(await ids(`updatedSince=${d.updatedAt}`)).toEqual([c.id]);
      expect(await ids(`updatedSince=${new Date(cDone.updatedAt - 1).toISOString()}`)).toEqual([c.id]);
      expect(await ids('q=button')).toEqual([a.id]);
      expect(await ids('q=payment')).toEqual([c.id, d.id]);
      expect(await ids(`q=${a.key}`)).toEqual([a.id]);
      expect(await ids('type=bug&priority=high,low&label=ui&category=todo')).toEqual([a.id]);
      const list = await h.call(ws.token, 'GET', `/tasks?projectId=${p.id}`);
      expect(list.body.data[0].description).toBeUndefined();
      expect(list.body.data[0].checklist).toBeUndefined();
      const bad = await h.call(ws.token, 'GET', '/tasks?type=nope&dueBefore=2026-13-01&archived=maybe');
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toMatch(/query\.type.*query\.dueBefore.*query\.archived/);
    });

    it('Russian full-text search', async () => {
      const t = (await create({ title: 'Исправить отчёты', descriptionText: 'Отчёты о продажах не выгружаются' })).body.data;
      const r = await h.call(ws.token, 'GET', `/tasks?q=${encodeURIComponent('продажи')}`);
      expect(r.body.data.map((x: any) => x.id)).toContain(t.id);
    });

    it('pages with a stable cursor in creation order', async () => {
      const p = (await h.call(ws.token, 'POST', '/projects', { name: 'Pages', key: 'PAG' })).body.data;
      for (let i = 0; i < 5; i++) await h.call(ws.token, 'POST', '/tasks', { title: `p${i}`, projectId: p.id });
      const first = await h.call(ws.token, 'GET', `/tasks?projectId=${p.id}&limit=2`);
      expect(first.body.total).toBe(5);
      await h.call(ws.token, 'POST', '/tasks', { title: 'p5', projectId: p.id });
      const titles = first.body.data.map((t: any) => t.title);
      let cursor = first.body.nextCursor;
      while (cursor) {
        const r = await h.call(ws.token, 'GET', `/tasks?projectId=${p.id}&limit=2&cursor=${cursor}`);
        titles.push(...r.body.data.map((t: any) => t.title));
        cursor = r.body.nextCursor;
      }
      expect(titles).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
    });

    it('pages a text search and updatedSince (a top-N of their match sets) by the same cursor, in creation order', async () => {
      const p = (await h.call(ws.token, 'POST', '/projects', { name: 'Synced', key: 'SYN' })).body.data;
      const old = (await h.call(ws.token, 'POST', '/tasks', { title: 'before the sync', projectId: p.id })).body.data;
      await new Promise((r) => setTimeout(r, 5));
      for (let i = 0; i < 5; i++) await h.call(ws.token, 'POST', '/tasks', { title: `quokka ${i}`, projectId: p.id });
      const walk = async (query: string) => {
        const seen: string[] = [];
        let r = await h.call(ws.token, 'GET', `/tasks?projectId=${p.id}&limit=2&${query}`);
        expect(r.body.total, query).toBe(5);
        for (;;) {
          seen.push(...r.body.data.map((t: any) => t.title));
          if (!r.body.nextCursor) return seen;
          r = await h.call(ws.token, 'GET', `/tasks?projectId=${p.id}&limit=2&${query}&cursor=${r.body.nextCursor}`);
        }
      };
      const want = [0, 1, 2, 3, 4].map((i) => `quokka ${i}`);
      expect(await walk('q=quokka')).toEqual(want);
      expect(await walk(`updatedSince=${old.updatedAt}`)).toEqual(want);
    });
  });

  describe('changes, moves and rules', () => {
    it('a PATCH whose task changes between its read and its write is planned again on the new version', async () => {
      const p = (await h.call(ws.token, 'POST', '/projects', { name: 'Races', key: 'RAC' })).body.data;
      const t = (await h.call(ws.token, 'POST', '/tasks', { title: 'raced', boardId: p.boards[0].id })).body.data;
      const tasks = h.runtime.deps.store.tasks;
      const write = tasks.updateView;
      let raced = 0;
      // Another PATCH lands after this one read the task and before it writes.
      tasks.updateView = async (...args) => {
        if (raced++ === 0) expect((await h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { title: 'by the other', priority: 'low' })).status).toBe(200);
        return write.apply(tasks, args);
      };
      try {
        const res = await h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { title: 'mine' });
        expect(res.status).toBe(200);
        expect(res.body.data).toMatchObject({ title: 'mine', priority: 'low' });
        // Its first write found another version and wrote nothing; the second was planned on the other's result.
        expect(raced).toBe(3);
        expect(res.headers.get('etag')).toBe((await h.call(ws.token, 'GET', `/tasks/${t.key}`)).headers.get('etag'));
        const entries = (await h.call(ws.token, 'GET', `/tasks/${t.key}/activity`)).body.data;
        expect(entries.map((e: any) => [e.action, e.changes])).toEqual([
          ['task.updated', [{ field: 'title', from: 'by the other', to: 'mine' }]],
          ['task.updated', [{ field: 'title', from: 'raced', to: 'by the other' }, { field: 'priority', from: 'medium', to: 'low' }]],
          ['task.created', expect.any(Array)],
        ]);
      } finally {
        tasks.updateView = write;
      }
    });

    it('PATCH statusId goes to the top; doneAt set and cleared; updatedAt moves', async () => {
      const p = (await h.call(ws.token, 'POST', '/projects', { name: 'Moves', key: 'MOV' })).body.data;
      const b = p.boards[0];
      // One after another: started 20 ms apart, creates on a loaded machine could finish out of order.
      const made: any[] = [];
      for (let i = 0; i < 3; i++) made.push((await h.call(ws.token, 'POST', '/tasks', { title: `m${i}`, boardId: b.id })).body.data);
      const [t1, t2, t3] = made;
      const col = async (statusId: string) =>
        (await h.call(ws.token, 'GET', `/tasks?statusId=${statusId}&orderBy=position`)).body.data.map((t: any) => [t.title, t.position]);
      expect(await col(b.statuses[0].id)).toEqual([['m0', 0], ['m1', 1], ['m2', 2]]);
      // A PATCH, even one that moves, answers the position only when asked.
      const moved = await h.call(ws.token, 'PATCH', `/tasks/${t3.id}?include=position`, { statusId: b.statuses[2].id });
      expect(moved.body.data.doneAt).toEqual(expect.any(Number));
      expect(moved.body.data.updatedAt).toBeGreaterThanOrEqual(t3.updatedAt);
      expect(moved.body.data.position).toBe(0);
      expect((await h.call(ws.token, 'PATCH', `/tasks/${t2.id}`, { statusId: b.statuses[2].id })).body.data).not.toHaveProperty('position');
      expect(await col(b.statuses[2].id)).toEqual([['m1', 0], ['m2', 1]]);
      const back = await h.call(ws.token, 'POST', `/tasks/${t3.id}/move`, { statusId: b.statuses[0].id, position: 1 });
      expect(back.status).toBe(201);
      expect(back.body.data.doneAt).toBeNull();
      expect(await col(b.statuses[0].id)).toEqual([['m0', 0], ['m2', 1]]);
      await h.call(ws.token, 'POST', `/tasks/${t2.id}/move`, { statusId: b.statuses[0].id, position: 0 });
      expect(await col(b.statuses[0].id)).toEqual([['m1', 0], ['m0', 1], ['m2', 2]]);
      expect((await h.call(ws.token, 'GET', `/tasks/${t1.id}?include=position`)).body.data.position).toBe(1);
      // Down its own column: the answer counts the tasks above its new place, not the task where it was.
      const down = await h.call(ws.token, 'POST', `/tasks/${t2.id}/move`, { statusId: b.statuses[0].id, position: 2 });
      expect(down.body.data.position).toBe(2);
      expect(await col(b.statuses[0].id)).toEqual([['m0', 0], ['m2', 1], ['m1', 2]]);
      expect(down.body.data).toEqual((await h.call(ws.token, 'GET', `/tasks/${t2.id}?include=position`)).body.data);
      expect((await h.call(ws.token, 'POST', `/tasks/${t1.id}/move`, { statusId: 'col_nope' })).status).toBe(404);
      expect((await h.call(ws.token, 'GET', '/tasks?orderBy=position')).status).toBe(400);
    });

    it('boards of the same project only; subtask cycles and foreign parents rejected', async () => {
      const p = (await h.call(ws.token, 'POST', '/projects', { name: 'Rules', key: 'RUL' })).body.data;
      const second = (await h.call(ws.token, 'POST', '/boards', { projectId: p.id, name: 'Second' })).body.data;
      const other = (await h.call(ws.token, 'POST', '/projects', { name: 'Other', key: 'RUO' })).body.data;
      const a = (await h.call(ws.token, 'POST', '/tasks', { title: 'a', projectId: p.id })).body.data;
      const b = (await h.call(ws.token, 'POST', '/tasks', { title: 'b', projectId: p.id, parentId: a.id })).body.data;
      const c = (await h.call(ws.token, 'POST', '/tasks', { title: 'c', projectId: p.id, parentId: b.key })).body.data;
      expect((await h.call(ws.token, 'GET', `/tasks/${a.id}`)).body.data.subtaskIds).toEqual([b.id]);
      const cyc = await h.call(ws.token, 'PATCH', `/tasks/${a.id}`, { parentId: c.id });
      expect(cyc.status).toBe(422);
      expect((await h.call(ws.token, 'PATCH', `/tasks/${a.id}`, { parentId: a.id })).status).toBe(422);
      const foreign = (await h.call(ws.token, 'POST', '/tasks', { title: 'f', projectId: other.id })).body.data;
      expect((await h.call(ws.token, 'PATCH', `/tasks/${a.id}`, { parentId: foreign.id })).status).toBe(422);
      expect((await h.call(ws.token, 'PATCH', `/tasks/${a.id}`, { boardId: other.boards[0].id })).status).toBe(422);
      const onSecond = await h.call(ws.token, 'PATCH', `/tasks/${a.id}`, { boardId: second.id });
      expect(onSecond.body.data).toMatchObject({ boardId: second.id, statusId: second.statuses[0].id });
      const detached = await h.call(ws.token, 'PATCH', `/tasks/${c.id}`, { parentId: null, assigneeId: ws.adminUser.id, priority: 'lowest', dueDate: '2027-02-03' });
      expect(detached.body.data).toMatchObject({ parentId: null, assigneeId: ws.adminUser.id, assigneeIds: [ws.adminUser.id], priority: 'lowest', dueDate: '2027-02-03' });
    });

    it('archived tasks answer 409 to every change until restored', async () => {
      const t = (await create({ title: 'to archive' })).body.data;
      const arch = await h.op('POST', `/tasks/${t.id}/archive`);
      expect(arch.body.data).toMatchObject({ archived: true, archivedAt: expect.any(Number) });
      for (const [m, path, body] of [
        ['PATCH', `/tasks/${t.id}`, { title: 'x' }],
        ['POST', `/tasks/${t.id}/move`, { statusId: board.statuses[1].id }],
        ['POST', `/tasks/${t.id}/comments`, { text: 'hi' }],
        ['DELETE', `/tasks/${t.id}`, undefined],
      ] as const) {
        const r = await h.call(ws.token, m, path, body);
        expect(r.status, `${m} ${path}`).toBe(409);
        expect(r.body.error.code).toBe('archived');
      }
      expect((await h.call(ws.token, 'GET', `/tasks?archived=true&q=${encodeURIComponent('archive')}`)).body.data.map((x: any) => x.id)).toContain(t.id);
      expect((await h.call(ws.token, 'GET', '/tasks?limit=500')).body.data.map((x: any) => x.id)).not.toContain(t.id);
      expect((await h.op('POST', `/tasks/${t.id}/restore`)).body.data.archived).toBe(false);
      const att = await h.op('POST', `/tasks/${t.id}/attachments`, { name: 'a.png', size: 10, type: 'image/png' });
      expect(att.status).toBe(201);
      expect((await h.call(ws.token, 'GET', `/tasks/${t.id}`)).body.data.attachments).toEqual([att.body.data]);
      expect((await h.call(ws.token, 'DELETE', `/tasks/${t.id}`)).status).toBe(204);
      expect((await h.call(ws.token, 'GET', `/tasks/${t.id}`)).status).toBe(404);
    });
  });

  describe('comments and context', () => {
    it('comments: oldest first, mentions, replyTo on the same task, 20 000 characters', async () => {
      const carl = await ws.user({ login: 'carl' });
      const t = (await create({ title: 'discuss' })).body.data;
      const c1 = await h.call(ws.token, 'POST', `/tasks/${t.key}/comments`, { text: 'Hey @carl and @nobody\nsecond line' });
      expect(c1.status).toBe(201);
      expect(c1.body.data).toMatchObject({ authorId: ws.adminUser.id, replyTo: null, mentionIds: [carl.id], text: 'Hey @carl and @nobody\nsecond line' });
      const c2 = await h.call(ws.token, 'POST', `/tasks/${t.id}/comments`, { text: 'reply', replyTo: c1.body.data.id });
      expect(c2.body.data.replyTo).toBe(c1.body.data.id);
      const other = (await create({ title: 'other' })).body.data;
      const wrong = await h.call(ws.token, 'POST', `/tasks/${other.id}/comments`, { text: 'x', replyTo: c1.body.data.id });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error.message).toContain('replyTo');
      expect((await h.call(ws.token, 'POST', `/tasks/${t.id}/comments`, { text: 'x'.repeat(20_001) })).status).toBe(400);
      expect((await h.call(ws.token, 'POST', `/tasks/${t.id}/comments`, { text: 'x'.repeat(20_000) })).status).toBe(201);
      const list = await h.call(ws.token, 'GET', `/tasks/${t.id}/comments?limit=2`);
      expect(list.body.data.map((c: any) => c.id)).toEqual([c1.body.data.id, c2.body.data.id]);
      expect(list.body.total).toBe(3);
      const jobs = await h.runtime.db('outbox').where({ name: 'notify.comment' }).whereRaw("payload->>'commentId' = ?", [c1.body.data.id]);
      expect(jobs).toHaveLength(1);
    });

    it('context as Markdown and JSON; docs and meetings sections gated by rights', async () => {
      const parent = (await create({ title: 'Context task', descriptionText: 'Do **this**', checklist: [{ text: 'step', done: true }] })).body.data;
      await create({ title: 'A subtask', parentId: parent.id });
      const cm = (await h.call(ws.token, 'POST', `/tasks/${parent.id}/comments`, { text: 'first comment' })).body.data;
      const md = await h.call(ws.token, 'GET', `/tasks/${parent.key}/context`);
      expect(md.status).toBe(200);
      expect(md.headers.get('content-type')).toContain('text/markdown');
      expect(md.text).toContain(`# ${parent.key}: Context task`);
      expect(md.text).toContain('- [x] step');
      expect(md.text).toContain('A subtask');
      expect(md.text).toContain(cm.id);
      expect(md.text).toContain('## Linked documents');
      expect(md.text).toContain('## Meeting agreements');
      const narrow = await ws.key(ws.adminUser.id, { scopes: ['tasks:read'] });
      const j = await h.call(narrow.token, 'GET', `/tasks/${parent.id}/context?format=json`);
      expect(j.body.data).toMatchObject({ taskId: parent.id, key: parent.key });
      expect(j.body.data.markdown).not.toContain('## Linked documents');
      expect(j.body.data.markdown).not.toContain('## Meeting agreements');
    });
  });

  describe('visibility', () => {
    it('tasks on closed boards and outside restricted projects are invisible, also in totals', async () => {
      const created = await h.call(ws.token, 'POST', '/projects', { name: 'Vis', key: 'VIS' });
      expect(created.body.error).toBeUndefined();
      const p = created.body.data;
      const q = (await h.call(ws.token, 'POST', '/projects', { name: 'Vis2', key: 'VIT' })).body.data;
      const t = (await h.call(ws.token, 'POST', '/tasks', { title: 'secret', projectId: p.id })).body.data;
      const u = (await h.call(ws.token, 'POST', '/tasks', { title: 'other project', projectId: q.id })).body.data;
      const member = await ws.user();
      const mk = await ws.key(member.id);
      expect((await h.call(mk.token, 'GET', `/tasks/${t.key}`)).status).toBe(200);
      await h.op('PUT', `/boards/${p.boards[0].id}/access`, { memberIds: [ws.adminUser.id] });
      expect((await h.call(mk.token, 'GET', `/tasks/${t.key}`)).status).toBe(404);
      expect((await h.call(mk.token, 'GET', `/tasks?projectId=${p.id}`)).body.total).toBe(0);
      const restricted = await ws.key(ws.adminUser.id, { projectIds: [p.id] });
      expect((await h.call(restricted.token, 'GET', `/tasks/${u.id}`)).status).toBe(404);
      const all = await h.call(restricted.token, 'GET', '/tasks?limit=500');
      expect(all.body.data.every((x: any) => x.projectId === p.id)).toBe(true);
      expect(all.body.total).toBe(all.body.data.length);
    });
  });
});

// The tests of apps/api/src/routes/tasks/references.int.test.ts, folded in here (one test process and one module load for them all); their setup and state stay inside this describe.
describe('references', () => {
  /**
   * References in request bodies: an object that does not exist and one the key may not see get the same 404
   * `not_found` naming the field, so a restricted key learns nothing; a visible object that breaks a rule keeps its
   * 400/422.
   */
  let h: Harness;
  let ws: TestWorkspace;
  let open: any;
  let hidden: any;
  let closedBoard: any;
  let outsider: { id: string; token: string };
  let restricted: { id: string; token: string };

  beforeAll(async () => {
    h = await startHarness();
    ws = await h.workspace();
    open = (await h.call(ws.token, 'POST', '/projects', { name: 'Open', key: 'OPN' })).body.data;
    hidden = (await h.call(ws.token, 'POST', '/projects', { name: 'Hidden', key: 'HID' })).body.data;
    closedBoard = (await h.call(ws.token, 'POST', '/boards', { projectId: open.id, name: 'Secret board' })).body.data;
    await h.op('PUT', `/boards/${closedBoard.id}/access`, { memberIds: [ws.adminUser.id] });
    const u = await ws.user();
    outsider = { id: u.id, token: (await ws.key(u.id)).token };
    const r = await ws.user();
    restricted = { id: r.id, token: (await ws.key(r.id, { projectIds: [open.id] })).token };
  });
  afterAll(() => h.close());

  const notFound = (r: { status: number; body: any }, field: string) => {
    expect(r.status, JSON.stringify(r.body)).toBe(404);
    expect(r.body.error.code).toBe('not_found');
    expect(r.body.error.message).toContain(field);
  };

  describe('references to invisible objects in bodies are 404', () => {
    it('POST /tasks: project outside a restricted key, closed board, missing column, parent and assignee', async () => {
      notFound(await h.call(restricted.token, 'POST', '/tasks', { title: 't', projectId: hidden.id }), 'projectId');
      notFound(await h.call(restricted.token, 'POST', '/tasks', { title: 't', projectId: 'prj_nope' }), 'projectId');
      notFound(await h.call(restricted.token, 'POST', '/tasks', { title: 't', boardId: hidden.boards[0].id }), 'boardId');
      notFound(await h.call(outsider.token, 'POST', '/tasks', { title: 't', boardId: closedBoard.id }), 'boardId');
      notFound(await h.call(ws.token, 'POST', '/tasks', { title: 't', boardId: open.boards[0].id, statusId: 'col_nope' }), 'statusId');
      const secretTask = (await h.call(ws.token, 'POST', '/tasks', { title: 'secret', boardId: closedBoard.id })).body.data;
      notFound(await h.call(outsider.token, 'POST', '/tasks', { title: 't', projectId: open.id, parentId: secretTask.id }), 'parentId');
      notFound(await h.call(outsider.token, 'POST', '/tasks', { title: 't', projectId: open.id, parentId: secretTask.key }), 'parentId');
      notFound(await h.call(ws.token, 'POST', '/tasks', { title: 't', projectId: open.id, assigneeIds: ['usr_nope'] }), 'assigneeIds');
      // Nothing was written by the refused requests.
      const all = await h.call(ws.token, 'GET', '/tasks?archived=all');
      expect(all.body.data.map((t: any) => t.title)).toEqual(['secret']);
    });

    it('PATCH and move: a closed board or a missing column is 404', async () => {
      const t = (await h.call(outsider.token, 'POST', '/tasks', { title: 'mine', projectId: open.id })).body.data;
      notFound(await h.call(outsider.token, 'PATCH', `/tasks/${t.key}`, { boardId: closedBoard.id }), 'boardId');
      notFound(await h.call(outsider.token, 'POST', `/tasks/${t.key}/move`, { statusId: closedBoard.statuses[0].id }), 'statusId');
      notFound(await h.call(outsider.token, 'POST', `/tasks/${t.key}/move`, { statusId: open.boards[0].statuses[0].id, boardId: closedBoard.id }), 'boardId');
      notFound(await h.call(outsider.token, 'POST', `/tasks/${t.key}/comments`, { text: 'hi', replyTo: 'cmt_nope' }), 'replyTo');
    });

    it('POST /docs: a closed space, a page of a closed space and an invisible task are 404', async () => {
      const openSpace = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Open space' })).body.data;
      const closedSpace = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Closed', memberIds: [ws.adminUser.id] })).body.data;
      const secretPage = (await h.call(ws.token, 'POST', '/docs', { spaceId: closedSpace.id, title: 'Secret' })).body.data;
      notFound(await h.call(outsider.token, 'POST', '/docs', { spaceId: closedSpace.id, title: 'x' }), 'spaceId');
      notFound(await h.call(outsider.token, 'POST', '/docs', { spaceId: openSpace.id, title: 'x', parentId: secretPage.id }), 'parentId');
      const hiddenTask = (await h.call(ws.token, 'POST', '/tasks', { title: 'h', projectId: hidden.id })).body.data;
      notFound(await h.call(restricted.token, 'POST', '/docs', { spaceId: openSpace.id, title: 'x', taskIds: [hiddenTask.key] }), 'taskIds');
      // A visible page of another visible space breaks a rule: 400.
      const other = (await h.call(ws.token, 'POST', '/docs', { spaceId: openSpace.id, title: 'Other' })).body.data;
      const elsewhere = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Elsewhere' })).body.data;
      const rule = await h.call(outsider.token, 'POST', '/docs', { spaceId: elsewhere.id, title: 'x', parentId: other.id });
      expect(rule.status).toBe(400);
    });

    it('answers leave out what the key may not see: subtasks on a closed board', async () => {
      const parent = (await h.call(ws.token, 'POST', '/tasks', { title: 'parent', projectId: open.id })).body.data;
      const secret = (await h.call(ws.token, 'POST', '/tasks', { title: 'secret child', boardId: closedBoard.id, parentId: parent.id })).body.data;
      expect((await h.call(ws.token, 'GET', `/tasks/${parent.key}`)).body.data.subtaskIds).toEqual([secret.id]);
      expect((await h.call(outsider.token, 'GET', `/tasks/${parent.key}`)).body.data.subtaskIds).toEqual([]);
    });

    it('visible objects that break a rule keep 400/422', async () => {
      const second = (await h.call(ws.token, 'POST', '/projects', { name: 'Second', key: 'SEC' })).body.data;
      const r = await h.call(ws.token, 'POST', '/tasks', { title: 't', projectId: second.id, boardId: open.boards[0].id });
      expect(r.status).toBe(400);
      const parent = (await h.call(ws.token, 'POST', '/tasks', { title: 'p', projectId: second.id })).body.data;
      const cross = await h.call(ws.token, 'POST', '/tasks', { title: 't', projectId: open.id, parentId: parent.id });
      expect(cross.status).toBe(422);
    });
  });
});
