import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWorkspace } from './test/harness.js';

let h: Harness;
let ws: TestWorkspace;
let project: any;

/** SQL statements a request sends to the database (the outbox relay's polling, built by Knex with "outbox" quoted, left out). */
async function queriesOf(db: Knex, send: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (q: { sql: string }) => {
    if (!/"outbox"/.test(q.sql)) seen.push(q.sql);
  };
  db.on('query', listener);
  try {
    await send();
  } finally {
    db.off('query', listener);
  }
  return seen;
}

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
  project = (await h.call(ws.token, 'POST', '/projects', { name: 'Trips', key: 'TRP', template: 'scrum' })).body.data;
});
afterAll(() => h.close());

describe('database round trips per request', () => {
  it('GET /tasks/{key} is two statements: the key (with user, teams and workspace) and the full task', async () => {
    const parent = (await h.call(ws.token, 'POST', '/tasks', { title: 'parent', projectId: project.id })).body.data;
    const t = (await h.call(ws.token, 'POST', '/tasks', { title: 'child', projectId: project.id, parentId: parent.id })).body.data;
    await h.call(ws.token, 'POST', `/tasks/${t.key}/time`, { seconds: 600, date: '2025-01-02' });
    await h.runtime.jobs.drain();
    let res: any;
    const sql = await queriesOf(h.runtime.db, async () => {
      res = await h.call(ws.token, 'GET', `/tasks/${parent.key}`);
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ key: parent.key, subtaskIds: [t.id], position: 0 });
    expect(sql, sql.join('\n')).toHaveLength(2);
    const child = await h.call(ws.token, 'GET', `/tasks/${t.id}`);
    expect(child.body.data).toMatchObject({ parentId: parent.id, timeSpentSeconds: 600, position: 1 });
    expect(child.body.data.timeLogs).toMatchObject([{ seconds: 600, date: '2025-01-02', taskKey: t.key }]);
  });

  it('GET /tasks is two statements whatever the filter: the key, then rows and total together', async () => {
    await h.runtime.jobs.drain();
    for (const query of [`projectId=${project.id}&category=todo`, '', 'label=x&priority=high', 'q=child', `updatedSince=${Date.now() - 60_000}`]) {
      let res: any;
      const sql = await queriesOf(h.runtime.db, async () => {
        res = await h.call(ws.token, 'GET', `/tasks?${query}`);
      });
      expect(res.status, query).toBe(200);
      expect(typeof res.body.total, query).toBe('number');
      expect(sql, `${query}\n${sql.join('\n')}`).toHaveLength(2);
    }
    // An assignee given by id is resolved inside the list query: still two statements, and the right tasks.
    const mine = (await h.call(ws.token, 'POST', '/tasks', { title: 'mine', projectId: project.id, assigneeIds: [ws.adminUser.id] })).body.data;
    await h.runtime.jobs.drain();
    let res: any;
    const sql = await queriesOf(h.runtime.db, async () => {
      res = await h.call(ws.token, 'GET', `/tasks?assigneeId=${ws.adminUser.id}`);
    });
    expect(sql, sql.join('\n')).toHaveLength(2);
    expect(res.body).toMatchObject({ total: 1, data: [{ id: mine.id }] });
    // A login (or a name, which may be ambiguous) is resolved first: a lookup or two more, never one per row.
    const byLogin = await queriesOf(h.runtime.db, () => h.call(ws.token, 'GET', `/tasks?assigneeId=${ws.adminUser.login}`));
    expect(byLogin.length).toBeLessThanOrEqual(4);
  });

  it('POST /tasks is three statements and no transaction; with a parent, the counter is taken last before the commit', async () => {
    const first = (await h.call(ws.token, 'POST', '/tasks', { title: 'first', projectId: project.id })).body.data;
    await h.runtime.jobs.drain();
    // Assigned to its author (no notification) on a board without rules (no automation job): no worker statements follow.
    let res: any;
    const sql = await queriesOf(h.runtime.db, async () => {
      res = await h.call(ws.token, 'POST', '/tasks', { title: 'second', boardId: first.boardId, assigneeIds: [ws.adminUser.id], labels: ['trips'] });
    });
    expect(res.status).toBe(201);
    // The key (with whether the workspace has webhooks), the board with its project, its rules and the assignees, and
    // the insert with its labels and outbox jobs, which commits on its own.
    const append = sql.findIndex((q) => /update projects set task_seq/.test(q));
    expect(sql.slice(0, append + 1), sql.join('\n')).toHaveLength(3);
    // After it, at most the in-process relay's claim of the new jobs (its outbox statement is left out above).
    expect(sql.slice(append + 1).every((q) => /^(begin|commit)\b/i.test(q.trim())), sql.join('\n')).toBe(true);
    // What POST answered is the full form GET gives, position included.
    const got = await h.call(ws.token, 'GET', `/tasks/${res.body.data.key}`);
    expect(res.body.data).toEqual(got.body.data);
    expect(res.body.data.position).toBe(first.position + 1);
    expect(res.headers.get('etag')).toMatch(/^"/);
    expect(res.headers.get('etag')).toBe(got.headers.get('etag'));

    // A subtask also changes its parent's version: one transaction, the counter taken last, right before the commit.
    const child = await queriesOf(h.runtime.db, async () => {
      res = await h.call(ws.token, 'POST', '/tasks', { title: 'child', boardId: first.boardId, parentId: first.id });
    });
    expect(res.status).toBe(201);
    const seq = child.findIndex((q) => /update projects set task_seq/.test(q));
    expect(child.some((q) => /^begin\b/i.test(q.trim())), child.join('\n')).toBe(true);
    expect(child[seq + 1]?.trim(), child.join('\n')).toMatch(/^commit\b/i);
    expect((await h.call(ws.token, 'GET', `/tasks/${first.id}`)).body.data.subtaskIds).toEqual([res.body.data.id]);
  });

  it('a revoked key fails on the next request: nothing serves it from a cache', async () => {
    const user = await ws.user();
    const key = await ws.key(user.id);
    expect((await h.call(key.token, 'GET', '/tasks')).status).toBe(200);
    expect((await h.op('DELETE', `/keys/${key.id}`)).status).toBe(204);
    expect((await h.call(key.token, 'GET', '/tasks')).status).toBe(401);
  });
});
