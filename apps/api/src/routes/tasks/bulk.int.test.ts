import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deps, keys, type Repos, tasks as taskUseCases } from '@tt/domain';
import { type Harness, startHarness, type TestWorkspace } from '../../test/harness.js';

// POST /v1/tasks/bulk: each item answered as its PATCH alone would be, in order; atomic all or nothing.
describe('bulk task changes', () => {
  let h: Harness;
  let ws: TestWorkspace;
  let board: any;
  let other: any;
  const PUBLIC = 'http://93.184.216.34/hook';

  beforeAll(async () => {
    h = await startHarness();
    ws = await h.workspace();
    // Subscriptions before the key's first request: every change of this workspace makes webhook events too.
    await h.op('POST', `/workspaces/${ws.id}/webhooks`, { url: PUBLIC, events: ['task.updated', 'task.moved'] });
    board = (await h.call(ws.token, 'POST', '/projects', { name: 'Bulk', key: 'BLK', template: 'scrum' })).body.data.boards[0];
    other = (await h.call(ws.token, 'POST', '/projects', { name: 'Other', key: 'OTB' })).body.data.boards[0];
  });
  afterAll(() => h.close());

  const create = async (title: string, boardId = board.id) => (await h.call(ws.token, 'POST', '/tasks', { boardId, title })).body.data;
  const bulk = (body: unknown, token = ws.token, headers: Record<string, string> = {}) => h.call(token, 'POST', '/tasks/bulk', body, headers);
  /** Activity entries and webhook events of a task, by kind: what a change leaves besides the task itself. */
  async function trail(taskId: string): Promise<string[]> {
    const entries = await h.runtime.db('activity').where({ task_id: taskId }).select('action');
    const events = await h.runtime.db('webhook_events').whereRaw(`data->'task'->>'id' = ?`, [taskId]).select('type');
    return [...entries.map((e: any) => `activity:${e.action}`), ...events.map((e: any) => `webhook:${e.type}`)].sort();
  }
  const get = async (key: string) => (await h.call(ws.token, 'GET', `/tasks/${key}`)).body.data;

  it('answers each item as alone, in order, and applies the valid ones (mixed items)', async () => {
    const [a, b, c, d] = [await create('a'), await create('b'), await create('c'), await create('d')];
    await h.op('POST', `/tasks/${d.id}/archive`);
    const done = board.statuses.find((s: any) => s.category === 'done');
    const r = await bulk({
      items: [
        { task: a.key, title: 'a1', priority: 'high' },
        { task: 'BLK-9999', title: 'nope' },
        { task: b.key, priority: 'urgent' },
        { task: a.id, labels: ['x', 'y'] },
        { task: c.key.toLowerCase(), column: 'done' },
        { task: d.key, title: 'archived' },
        { task: b.key, column: 'No such column' },
        { task: c.key, column: done.name, statusId: done.id },
        'not an object',
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.data.map((e: any) => [e.task, e.status])).toEqual([
      [a.key, 200], ['BLK-9999', 404], [b.key, 400], [a.key, 200], [c.key, 200], [d.key, 409], [b.key, 400], [c.key, 400], [null, 400],
    ]);
    const [first, missing, badPriority, second, moved, archived, badColumn, both, notObject] = r.body.data;
    // A later item sees the earlier one: the second change of a keeps its new title.
    expect(first.data).toMatchObject({ key: a.key, title: 'a1', priority: 'high' });
    expect(second.data).toMatchObject({ title: 'a1', priority: 'high', labels: ['x', 'y'] });
    expect(moved.data).toMatchObject({ statusId: done.id, status: { category: 'done' }, position: 0 });
    expect(missing.error).toEqual({ code: 'not_found', message: expect.stringContaining('task: task BLK-9999 not found') });
    expect(badPriority.error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/^priority: /) });
    expect(archived.error.code).toBe('archived');
    expect(badColumn.error.message).toMatch(/^column: no column No such column/);
    expect(both.error.message).toMatch(/^column: /);
    expect(notObject.error.code).toBe('invalid_request');
    for (const e of [missing, badPriority, archived, badColumn]) expect(e.data).toBeUndefined();
    expect(await get(b.key)).toMatchObject({ priority: 'medium', statusId: board.statuses[0].id });
    expect(await get(d.key)).toMatchObject({ title: 'd' });
  });

  it('leaves the same activity entries and webhook events as the same PATCHes one by one', async () => {
    const done = board.statuses.find((s: any) => s.category === 'done');
    const mine = [await create('p'), await create('q')];
    const twins = [await create('p'), await create('q')];
    // A move, then a change of the moved task and one of a task already in that column: no move is seen twice.
    const changes = [{ statusId: done.id }, { title: 'p1' }, { statusId: done.id, labels: ['z'] }, { priority: 'low' as const }, { title: 'q1' }];
    const targets = [0, 0, 1, 0, 1];
    const r = await bulk({ items: [...changes.map((c, i) => ({ task: mine[targets[i]!].key, ...c })), { task: mine[1].key, priority: 'bad' }] });
    expect(r.body.data.map((e: any) => e.status)).toEqual([200, 200, 200, 200, 200, 400]);
    for (const [i, c] of changes.entries()) expect((await h.call(ws.token, 'PATCH', `/tasks/${twins[targets[i]!].key}`, c)).status).toBe(200);
    for (const i of [0, 1]) {
      const got = await trail(mine[i].id);
      expect(got).toEqual(await trail(twins[i].id));
      expect(got.length).toBeGreaterThan(1);
    }
    expect(await trail(mine[1].id)).toContain('webhook:task.moved');
  });

  it('answers each item with the body the same PATCHes one by one give: positions and column order too, moves to the top of one column included', async () => {
    // Twin projects, each with the same tasks in the same order: one changed by a bulk call, the other by PATCHes.
    const twin = async (key: string) => {
      const project = (await h.call(ws.token, 'POST', '/projects', { name: key, key, template: 'scrum' })).body.data;
      const b = project.boards[0];
      const made = [];
      for (let i = 0; i < 8; i++) made.push((await h.call(ws.token, 'POST', '/tasks', { boardId: b.id, title: `t${i}` })).body.data);
      return { board: b, made };
    };
    const [bulked, patched] = [await twin('TWA'), await twin('TWB')];
    const person = await ws.user();
    // By task index: the change, with its column by name (the PATCH names the same column by id).
    const changes: Array<[number, Record<string, unknown>]> = [
      [0, { column: 'In Progress' }], [1, { column: 'In Progress' }], [2, { title: 't2 renamed' }],
      // t0 again: a later item sees the earlier one (it starts another set of changes).
      [0, { column: 'Backlog' }], [3, { column: 'Done', priority: 'high' }], [1, { title: 't1 renamed' }],
      [4, { column: 'In Progress' }], [2, { column: 'In Progress' }], [5, { assigneeIds: [person.id], labels: ['tw'] }],
      [6, { column: 'Backlog' }], [7, { priority: 'nope' }], [5, { dueDate: '2030-01-02', checklist: [{ text: 'one', done: false }] }],
    ];
    const columnId = (b: any, name: string) => b.statuses.find((s: any) => s.name === name)?.id ?? 'no-such-column';
    const r = await bulk({ items: changes.map(([i, c]) => ({ task: bulked.made[i].key, ...c })) });
    expect(r.status).toBe(200);
    const alone = [];
    for (const [i, { column, ...c }] of changes) {
      const body = column === undefined ? c : { ...c, statusId: columnId(patched.board, column as string) };
      // A bulk item's answer carries the position: the PATCH gives it when asked.
      alone.push(await h.call(ws.token, 'PATCH', `/tasks/${patched.made[i].key}?include=position`, body));
    }
    // What differs between twins by construction: ids, keys, the project, board and columns, times.
    const same = (t: any) => t && {
      title: t.title, priority: t.priority, labels: t.labels, assigneeIds: t.assigneeIds, dueDate: t.dueDate, position: t.position,
      status: t.status, checklist: t.checklist.map((x: any) => x.text), subtaskIds: t.subtaskIds, timeLogs: t.timeLogs,
    };
    expect(r.body.data.map((e: any) => [e.status, same(e.data)])).toEqual(alone.map((a) => [a.status, same(a.body.data)]));
    expect(r.body.data.map((e: any) => e.error?.code)).toEqual(alone.map((a) => a.body.error?.code));
    // The columns hold the tasks in the same order.
    const order = async (b: any) => {
      const all = [];
      for (const s of b.statuses) all.push(`${s.name}: ${(await h.call(ws.token, 'GET', `/tasks?statusId=${s.id}&orderBy=position&limit=50`)).body.data.map((t: any) => t.title).join(' ')}`);
      return all;
    };
    expect(await order(bulked.board)).toEqual(await order(patched.board));
    for (const [i, t] of bulked.made.entries()) {
      const [mine, theirs] = [await h.call(ws.token, 'GET', `/tasks/${t.key}?include=position`), await h.call(ws.token, 'GET', `/tasks/${patched.made[i].key}?include=position`)];
      expect(same(mine.body.data)).toEqual(same(theirs.body.data));
      expect(mine.headers.get('etag')).toBe(theirs.headers.get('etag'));
      expect(await trail(t.id)).toEqual(await trail(patched.made[i].id));
    }
  });

  it('an item whose task changed after the call read it is planned again on the task as it is now, the others written with the rest', async () => {
    const [a, b, c] = [await create('race a'), await create('race b'), await create('race c')];
    const actor = await keys.authenticate({ authorization: `Bearer ${ws.token}`, ip: '127.0.0.1', surface: 'api' }, h.runtime.deps);
    // Another writer changes b between the call's read and its write (in the call's transaction, standing in for a
    // commit elsewhere): b's guarded row writes nothing, and b is planned and changed again alone.
    const deps: Deps = {
      ...h.runtime.deps,
      store: {
        ...h.runtime.deps.store,
        transaction: (fn) => h.runtime.deps.store.transaction((repos) => fn(new Proxy(repos, {
          get: (target, name) => name !== 'tasks' ? Reflect.get(target, name) : new Proxy(target.tasks, {
            get: (tasks, method) => method !== 'updateViews' ? Reflect.get(tasks, method) : (async (...args: Parameters<Repos['tasks']['updateViews']>) => {
              await tasks.update(b.id, { priority: 'lowest', updatedAt: Date.now() });
              return tasks.updateViews(...args);
            }),
          }),
        }))),
      },
    };
    const results = await taskUseCases.bulkUpdateTasks(actor, {
      atomic: false, items: [{ task: a.key, title: 'race a1' }, { task: b.key, title: 'race b1' }, { task: c.key, column: 'progress' }],
    }, deps);
    expect(results.map((x) => x.status)).toEqual([200, 200, 200]);
    expect(results[1]!.data).toMatchObject({ title: 'race b1', priority: 'lowest' });
    expect(results[2]!.data).toMatchObject({ status: { category: 'progress' }, position: 0 });
    const got = await h.call(ws.token, 'GET', `/tasks/${b.key}`);
    expect(got.body.data).toMatchObject({ title: 'race b1', priority: 'lowest' });
    // Its version: created, changed elsewhere, changed by the item once.
    expect(Number(JSON.parse(got.headers.get('etag')!))).toBe(b.version === undefined ? 3 : b.version + 2);
    const entries = (await h.call(ws.token, 'GET', `/tasks/${b.key}/activity`)).body.data;
    expect(entries.filter((e: any) => e.action === 'task.updated')).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: 'task.updated', changes: [{ field: 'title', from: 'race b', to: 'race b1' }] });
    expect((await get(a.key)).title).toBe('race a1');
  });

  it('atomic: applies nothing when an item fails and answers that item\'s error under items[i]', async () => {
    const [a, b] = [await create('atomic a'), await create('atomic b')];
    const before = await trail(a.id);
    const r = await bulk({ atomic: true, items: [{ task: a.key, title: 'changed' }, { task: b.key, title: 'changed too' }, { task: 'BLK-88888', title: 'x' }] });
    expect(r.status).toBe(404);
    expect(r.body.error).toEqual({ code: 'not_found', message: 'items[2].task: task BLK-88888 not found' });
    expect((await get(a.key)).title).toBe('atomic a');
    expect(await trail(a.id)).toEqual(before);
    const invalid = await bulk({ atomic: true, items: [{ task: a.key, title: 'changed' }, { task: b.key, dueDate: 'soon', nope: 1 }] });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.message).toMatch(/items\[1\]\.dueDate: .*items\[1\]\.nope: unknown field/);
    const ok = await bulk({ atomic: true, items: [{ task: a.key, title: 'changed' }, { task: b.key, column: 'progress' }] });
    expect(ok.status).toBe(200);
    expect(ok.body.data.map((e: any) => e.status)).toEqual([200, 200]);
    expect((await get(b.key)).status.category).toBe('progress');
  });

  it('checks the body: at most 100 items, at least one, nothing else', async () => {
    const t = await create('limits');
    const many = await bulk({ items: Array.from({ length: 101 }, () => ({ task: t.key, title: 'x' })) });
    expect(many.status).toBe(400);
    expect(many.body.error.message).toMatch(/items/);
    expect((await bulk({ items: [] })).status).toBe(400);
    expect((await bulk({ items: [{ task: t.key }], extra: true })).status).toBe(400);
    expect((await bulk({ items: [{ task: t.key, title: 'y' }] }, (await ws.key(ws.adminUser.id, { scopes: ['tasks:read'] })).token)).status).toBe(403);
  });

  it('a project-restricted key: a task outside its projects is that item\'s 404, as alone', async () => {
    const inside = await create('inside');
    const outside = await create('outside', other.id);
    const key = await ws.key(ws.adminUser.id, { projectIds: [board.projectId] });
    const alone = await h.call(key.token, 'PATCH', `/tasks/${outside.key}`, { title: 'x' });
    const r = await bulk({ items: [{ task: inside.key, title: 'in' }, { task: outside.key, title: 'x' }, { task: outside.id, title: 'x' }] }, key.token);
    expect(r.body.data.map((e: any) => e.status)).toEqual([200, alone.status, 404]);
    expect(r.body.data[1].error.code).toBe('not_found');
    expect((await get(outside.key)).title).toBe('outside');
    // Atomic: the hidden task fails the whole call, and the visible one is left as it was.
    const atomic = await bulk({ atomic: true, items: [{ task: inside.key, title: 'in again' }, { task: outside.key, title: 'x' }] }, key.token);
    expect(atomic.status).toBe(404);
    expect((await get(inside.key)).title).toBe('in');
  });

  it('Idempotency-Key: the same call again replays the first answer and changes nothing', async () => {
    const t = await create('idem');
    const body = { items: [{ task: t.key, title: 'idem 1' }, { task: 'BLK-77777', title: 'x' }] };
    const first = await bulk(body, ws.token, { 'idempotency-key': `bulk-${t.id}` });
    expect(first.status).toBe(200);
    const entries = await trail(t.id);
    await h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { title: 'changed since' });
    const again = await bulk(body, ws.token, { 'idempotency-key': `bulk-${t.id}` });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await get(t.key)).title).toBe('changed since');
    expect((await trail(t.id)).length).toBe(entries.length + 2);
    const reused = await bulk({ items: [{ task: t.key, title: 'other' }] }, ws.token, { 'idempotency-key': `bulk-${t.id}` });
    expect(reused.status).toBe(422);
  });
});

describe('bulk task changes and the rate limit', () => {
  let h: Harness;
  afterAll(() => h?.close());

  it('spends one point per item', async () => {
    h = await startHarness({ RATE_LIMIT_PER_MINUTE: '30' });
    const ws = await h.workspace();
    const board = (await h.call(ws.token, 'POST', '/projects', { name: 'Rl', key: 'RLB' })).body.data.boards[0];
    const t = (await h.call(ws.token, 'POST', '/tasks', { boardId: board.id, title: 'rl' })).body.data;
    const r = await h.call(ws.token, 'POST', '/tasks/bulk', { items: Array.from({ length: 10 }, (_, i) => ({ task: t.key, title: `rl ${i}` })) });
    expect(r.status).toBe(200);
    // Three requests before (project, task, this one's ten points): 30 - 2 - 10.
    expect(r.headers.get('x-ratelimit-remaining')).toBe('18');
    const over = await h.call(ws.token, 'POST', '/tasks/bulk', { items: Array.from({ length: 20 }, () => ({ task: t.key, title: 'over' })) });
    expect(over.status).toBe(429);
    // Refused as a whole: none of its items was applied.
    expect((await h.runtime.db('tasks').where({ id: t.id }).first('title')).title).toBe('rl 9');
  });
});
