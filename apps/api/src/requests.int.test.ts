import type { Server } from 'node:http';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { usesPreparedStatements } from '@tt/store';
import { keys, people, SCOPES } from '@tt/domain';
import { createRuntime, type Runtime } from '@tt/http';
import { type Harness, startHarness, type TestResponse, type TestWorkspace } from './test/harness.js';
import { createTestDatabase } from '../../../packages/store/src/testing.js';
import { createApiApp } from './app.js';

// The tests of apps/api/src/prepared.int.test.ts, folded in here (one test process and one module load for them all); their setup and state stay inside this describe.
describe('prepared', () => {
  /*
   * The hot statements run as named prepared statements on PostgreSQL (parsed and planned once per connection): the
   * key of every request, the full task, every list shape whose plan does not depend on its values, and the create.
   * If one of them starts being sent unnamed (a builder that no longer gives the same text, a refactor that bypasses
   * the prepared path), this fails. On PGlite and behind PgBouncer (DATABASE_PREPARED_STATEMENTS=false) nothing is named.
   */

  let h: Harness;
  let ws: TestWorkspace;
  let project: any;
  let prepared: boolean;

  interface Sent { sql: string; name: string | undefined }

  /** The statements a request sends, each with the prepared statement's name it ran under (none: unnamed). */
  async function sent(db: Knex, send: () => Promise<{ status: number }>): Promise<Sent[]> {
    const seen: Sent[] = [];
    const listener = (q: { sql: string; options?: { name?: string } }) => {
      // The outbox relay's polling (its statements name "outbox"; its transaction's BEGIN and COMMIT) runs beside.
      if (!/"outbox"|^(BEGIN|COMMIT|ROLLBACK)\b/i.test(q.sql)) seen.push({ sql: q.sql, name: q.options?.name });
    };
    db.on('query', listener);
    try {
      const res = await send();
      expect(res.status).toBeLessThan(300);
    } finally {
      db.off('query', listener);
    }
    return seen;
  }

  const show = (s: Sent[]) => s.map((x) => `${x.name ?? '(unnamed)'}: ${x.sql.slice(0, 120)}`).join('\n');

  beforeAll(async () => {
    h = await startHarness();
    prepared = usesPreparedStatements(h.runtime.db);
    ws = await h.workspace();
    project = (await h.call(ws.token, 'POST', '/projects', { name: 'Prepared', key: 'PRP', template: 'scrum' })).body.data;
    for (let i = 0; i < 3; i++) await h.call(ws.token, 'POST', '/tasks', { title: `seed ${i}`, projectId: project.id, assigneeIds: [ws.adminUser.id], labels: ['a'] });
    await h.runtime.jobs.drain();
  });
  afterAll(() => h.close());

  describe('hot statements are prepared', () => {
    it('GET /tasks/{key}: the key and the full task in one statement, named; with include=position both named', async () => {
      const t = (await h.call(ws.token, 'GET', `/tasks?projectId=${project.id}&limit=1`)).body.data[0];
      const s = await sent(h.runtime.db, () => h.call(ws.token, 'GET', `/tasks/${t.key}`));
      expect(s, show(s)).toHaveLength(1);
      const byId = await sent(h.runtime.db, () => h.call(ws.token, 'GET', `/tasks/${t.id}`));
      expect(byId, show(byId)).toHaveLength(1);
      const asked = await sent(h.runtime.db, () => h.call(ws.token, 'GET', `/tasks/${t.key}?include=position`));
      expect(asked, show(asked)).toHaveLength(2);
      for (const x of [...s, ...byId, ...asked]) expect(Boolean(x.name), show([...s, ...byId, ...asked])).toBe(prepared);
    });

    it('GET /tasks: every shape whose plan holds for any value is named, the same name each time', async () => {
      const status = project.boards[0].statuses[1].id;
      const shapes = [
        '', `projectId=${project.id}`, `projectId=${project.id}&category=todo`, 'category=progress', 'assigneeId=none',
        `statusId=${status}&orderBy=position`, 'priority=high,highest', 'orderBy=priority',
        `projectId=${project.id}&orderBy=dueDate`, 'orderBy=updated', 'type=bug', `boardId=${project.boards[0].id}&limit=2`,
        // A person and a text: a top-N of the match set, which is read from its own index whatever the value.
        'q=seed', `assigneeId=${ws.adminUser.id}`, 'assigneeId=me&category=progress',
        // The changes since a time, as a sync asks: a top-N of the match set read from its covering index.
        `updatedSince=${Date.now() - 60_000}`,
        // A label or a due date alone: one plan that walks the ids or sorts the matches, as the totals choose.
        'label=a', 'label=a,b', 'dueBefore=2030-01-01',
      ];
      for (const query of shapes) {
        const first = await sent(h.runtime.db, () => h.call(ws.token, 'GET', `/tasks?${query}`));
        const again = await sent(h.runtime.db, () => h.call(ws.token, 'GET', `/tasks?${query}`));
        expect(first, `${query}\n${show(first)}`).toHaveLength(2);
        for (const x of first) expect(Boolean(x.name), `${query}\n${show(first)}`).toBe(prepared);
        expect(again.map((x) => x.name), query).toEqual(first.map((x) => x.name));
      }
    });

    it('GET /tasks: labels or a due date beside a project, a reporter, updatedSince beside another condition or in a sort-key order are planned for their values (the list statement unnamed)', async () => {
      const person = ws.adminUser.id;
      const queries = [
        `label=a&projectId=${project.id}`, `reporterId=${person}`, `dueBefore=2030-01-01&projectId=${project.id}`, `projectId=${project.id}&updatedSince=${Date.now() - 60_000}`,
        `updatedSince=${Date.now() - 60_000}&assigneeId=${person}`, `updatedSince=${Date.now() - 60_000}&priority=high`,
        `updatedSince=${Date.now() - 60_000}&orderBy=priority`, `updatedSince=${Date.now() - 60_000}&archived=all`,
      ];
      for (const query of queries) {
        const s = await sent(h.runtime.db, () => h.call(ws.token, 'GET', `/tasks?${query}`));
        // The key (and, for a reporter, the person's lookup) named; the list last, unnamed.
        expect(s.length, `${query}\n${show(s)}`).toBeGreaterThanOrEqual(2);
        for (const x of s.slice(0, -1)) expect(Boolean(x.name), `${query}\n${show(s)}`).toBe(prepared);
        expect(s.at(-1)!.sql, query).toMatch(/left join lateral/);
        expect(s.at(-1)!.name, query).toBeUndefined();
      }
    });

    it('PATCH /tasks/{key}: a task this process has not read is read before the change; one it has is changed at once, the change answering with its full form', async () => {
      // A create does not keep its task: the first PATCH reads it.
      const t = (await h.call(ws.token, 'POST', '/tasks', { title: 'named patch', projectId: project.id })).body.data;
      const s = await sent(h.runtime.db, () => h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { title: 'renamed once', priority: 'high' }));
      // The read before joins the task's column; the change is a CTE whose row the full form's read (details too) uses.
      const touching = s.filter((x) => /"tasks"/.test(x.sql) && !/^insert into "activity"/.test(x.sql));
      expect(touching, show(s)).toHaveLength(2);
      expect(touching[0]!.sql, show(s)).toMatch(/^select .* from "tasks" inner join "statuses"/);
      expect(touching[1]!.sql, show(s)).toMatch(/^with "changed" as \(update "tasks" set .*subtask_ids/s);
      expect(Boolean(touching[1]!.name), show(s)).toBe(prepared);
      // No webhook subscription in the workspace (the key's read said so) and no job: no lookup, and no relay pass.
      expect(s.filter((x) => /from "webhooks"/.test(x.sql)), show(s)).toHaveLength(0);
      // The change left the task in this process's memory: the next PATCH is the key and the change, which also checks
      // that the board's members are those the plan saw; both named.
      const again = await sent(h.runtime.db, () => h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { title: 'renamed twice', priority: 'low' }));
      expect(again, show(again)).toHaveLength(2);
      expect(again[0]!.sql, show(again)).toMatch(/from "api_keys"/);
      expect(again[1]!.sql, show(again)).toMatch(/^with "changed" as \(update "tasks" set .*"version" = \$\d+ and \(select b\.member_ids from boards b/s);
      for (const x of again) expect(Boolean(x.name), show(again)).toBe(prepared);
    });

    it('POST /tasks on a board: the key, the placement and the insert, all named; then the key and the checked insert', async () => {
      // A board no create has placed a task on yet (creates by project remember their board too).
      const board = (await h.call(ws.token, 'POST', '/boards', { projectId: project.id, name: 'Named', template: 'bugs' })).body.data;
      const body = { title: 'named', boardId: board.id, assigneeIds: [ws.adminUser.id], labels: ['a'] };
      const s = await sent(h.runtime.db, () => h.call(ws.token, 'POST', '/tasks', body));
      for (const part of [/from "api_keys"/, /from "boards"/, /insert into tasks/]) {
        const x = s.find((y) => part.test(y.sql));
        expect(x, `${part}\n${show(s)}`).toBeDefined();
        expect(Boolean(x!.name), `${part}\n${show(s)}`).toBe(prepared);
      }
      // The process keeps the placement it read: the next create on the board is the key and an insert that checks it.
      const again = await sent(h.runtime.db, () => h.call(ws.token, 'POST', '/tasks', { ...body, title: 'named again' }));
      expect(again, show(again)).toHaveLength(2);
      expect(again[0]!.sql, show(again)).toMatch(/from "api_keys"/);
      expect(again[1]!.sql, show(again)).toMatch(/^with held as .*insert into tasks/s);
      for (const x of again) expect(Boolean(x.name), show(again)).toBe(prepared);
    });
  });
});

// A by-key read's calls to Redis: the rate limit's one (the shared budget), nothing else.
describe.runIf(process.env.TEST_REDIS_URL)('Redis calls per request', () => {
  let h: Harness;
  let ws: TestWorkspace;

  beforeAll(async () => {
    h = await startHarness({ REDIS_URL: process.env.TEST_REDIS_URL! });
    ws = await h.workspace();
  });
  afterAll(() => h.close());

  it('GET /tasks/{key} sends one command to Redis: the rate limit\'s', async () => {
    const project = (await h.call(ws.token, 'POST', '/projects', { name: 'Redis trips', key: 'RDT', template: 'scrum' })).body.data;
    const t = (await h.call(ws.token, 'POST', '/tasks', { title: 'counted', projectId: project.id })).body.data;
    const redis = h.runtime.redis!;
    // Every command of the client (rate-limiter-flexible's script included) goes through sendCommand.
    const send = redis.sendCommand.bind(redis);
    const commands: string[] = [];
    redis.sendCommand = ((command: { name: string }) => {
      commands.push(command.name);
      return send(command as never);
    }) as typeof redis.sendCommand;
    try {
      // The first request of a key may load the limiter's script: count a later one.
      await h.call(ws.token, 'GET', `/tasks/${t.key}`);
      commands.length = 0;
      const res = await h.call(ws.token, 'GET', `/tasks/${t.key}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(commands, commands.join(', ')).toHaveLength(1);
    } finally {
      redis.sendCommand = send;
    }
  });
});

// The tests of apps/api/src/round-trips.int.test.ts, folded in here (one test process and one module load for them all); their setup and state stay inside this describe.
describe('round-trips', () => {
  let h: Harness;
  let ws: TestWorkspace;
  let project: any;

  /**
   * SQL statements a request sends to the database. The outbox relay runs beside it on the same pool, woken by a commit
   * or by its timer at any moment: its claims (built by Knex with "outbox" quoted) are left out, and so are the BEGIN
   * and COMMIT of any transaction that sent nothing else here, which is a relay pass (one whose BEGIN came before the
   * window, or whose claim comes after it). A transaction of the request's own always sends a statement of its own, so
   * its BEGIN and COMMIT count.
   */
  async function queriesOf(db: Knex, send: () => Promise<unknown>): Promise<string[]> {
    const seen: Array<{ sql: string; tx?: string }> = [];
    const listener = (q: { sql: string; __knexTxId?: string }) => {
      if (!/"outbox"/.test(q.sql)) seen.push({ sql: q.sql, tx: q.__knexTxId });
    };
    db.on('query', listener);
    try {
      await send();
    } finally {
      db.off('query', listener);
    }
    const control = (sql: string) => /^\s*(begin|commit|rollback)\b/i.test(sql);
    const working = new Set(seen.filter((q) => q.tx && !control(q.sql)).map((q) => q.tx));
    return seen.filter((q) => !control(q.sql) || (q.tx !== undefined && working.has(q.tx))).map((q) => q.sql);
  }

  beforeAll(async () => {
    h = await startHarness();
    ws = await h.workspace();
    project = (await h.call(ws.token, 'POST', '/projects', { name: 'Trips', key: 'TRP', template: 'scrum' })).body.data;
  });
  afterAll(() => h.close());

  describe('database round trips per request', () => {
    it('GET /tasks/{key} is one statement: the key (with user, teams and workspace) and the full task together; with include=position two, the count of its position in the second', async () => {
      const parent = (await h.call(ws.token, 'POST', '/tasks', { title: 'parent', projectId: project.id })).body.data;
      const t = (await h.call(ws.token, 'POST', '/tasks', { title: 'child', projectId: project.id, parentId: parent.id })).body.data;
      await h.call(ws.token, 'POST', `/tasks/${t.key}/time`, { seconds: 600, date: '2025-01-02' });
      await h.runtime.jobs.drain();
      // The count of the tasks above it in its column, the position's cost.
      const counted = (q: string) => /select count\(\*\) from tasks p where p\.status_id/.test(q);
      let res: any;
      const sql = await queriesOf(h.runtime.db, async () => {
        res = await h.call(ws.token, 'GET', `/tasks/${parent.key}`);
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ key: parent.key, subtaskIds: [t.id] });
      expect(res.body.data).not.toHaveProperty('position');
      expect(sql, sql.join('\n')).toHaveLength(1);
      expect(sql.some(counted), sql.join('\n')).toBe(false);
      const asked = await queriesOf(h.runtime.db, async () => {
        res = await h.call(ws.token, 'GET', `/tasks/${parent.key}?include=position`);
      });
      expect(res.body.data).toMatchObject({ key: parent.key, subtaskIds: [t.id], position: 0 });
      expect(asked, asked.join('\n')).toHaveLength(2);
      expect(counted(asked[1]!), asked.join('\n')).toBe(true);
      const child = await h.call(ws.token, 'GET', `/tasks/${t.id}?include=position`);
      expect(child.body.data).toMatchObject({ parentId: parent.id, timeSpentSeconds: 600, position: 1 });
      expect(child.body.data.timeLogs).toMatchObject([{ seconds: 600, date: '2025-01-02', taskKey: t.key }]);
      // The rest of the answer is the same either way.
      const { position: _p, ...rest } = child.body.data;
      expect((await h.call(ws.token, 'GET', `/tasks/${t.id}`)).body.data).toEqual(rest);
      // Anything else in include is refused, naming it.
      for (const bad of ['include=positions', 'include=position,subtasks', 'include=position&include=position', 'include=']) {
        const refused = await h.call(ws.token, 'GET', `/tasks/${t.id}?${bad}`);
        expect(refused.status, bad).toBe(400);
        expect(refused.body.error, bad).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/^query\.include/) });
      }
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

    it('POST /tasks is three statements and no transaction, two once the board is known, by board or by project; with a parent, one more read and still no transaction', async () => {
      // A project of its own: no create has placed a task on its boards yet.
      const fresh = (await h.call(ws.token, 'POST', '/projects', { name: 'Fresh trips', key: 'FTR', template: 'scrum' })).body.data;
      let res: any;
      // Assigned to its author (no notification) on a board without rules (no automation job): no worker statements follow.
      const sql = await queriesOf(h.runtime.db, async () => {
        res = await h.call(ws.token, 'POST', '/tasks', { title: 'first', projectId: fresh.id, assigneeIds: [ws.adminUser.id], labels: ['trips'] });
      });
      expect(res.status).toBe(201);
      const first = res.body.data;
      // The key (with whether the workspace has webhooks), the project's first board open to the user with its project,
      // its rules and the assignees, and the insert with its labels and outbox jobs, which commits on its own.
      const append = sql.findIndex((q) => /update projects set task_seq/.test(q));
      expect(sql.slice(0, append + 1), sql.join('\n')).toHaveLength(3);
      // After it, at most the in-process relay's claim of the new jobs (its outbox statement is left out above).
      expect(sql.slice(append + 1).every((q) => /^(begin|commit)\b/i.test(q.trim())), sql.join('\n')).toBe(true);
      // What POST answered is the full form GET gives, position included (GET gives it when asked).
      const got = await h.call(ws.token, 'GET', `/tasks/${res.body.data.key}?include=position`);
      expect(res.body.data).toEqual(got.body.data);
      expect(res.headers.get('etag')).toMatch(/^"/);
      expect(res.headers.get('etag')).toBe(got.headers.get('etag'));

      // The board as the last create read it is kept: the key, then the insert that checks it held and writes; by
      // project, the insert also checks that the board is still the project's first open to the user.
      for (const [body, title] of [[{ projectId: fresh.id }, 'by project'], [{ boardId: first.boardId }, 'by board']] as const) {
        const again = await queriesOf(h.runtime.db, async () => {
          res = await h.call(ws.token, 'POST', '/tasks', { title, ...body, assigneeIds: [ws.adminUser.id], labels: ['trips'] });
        });
        expect(res.status, title).toBe(201);
        const checked = again.findIndex((q) => /update projects set task_seq/.test(q));
        expect(again.slice(0, checked + 1), again.join('\n')).toHaveLength(2);
        expect(again[checked], again.join('\n')).toMatch(/^with held as/);
        if (title === 'by project') expect(again[checked], again.join('\n')).toMatch(/order by o\.id limit 1/);
      }
      expect(res.body.data.position).toBe(first.position + 2);

      // A subtask also moves its parent's version, in the insert itself, guarded by the version read (and, as the
      // parent comes from this process's memory (the GET above read it), by its board's members): the key and the
      // insert; no transaction.
      const child = await queriesOf(h.runtime.db, async () => {
        res = await h.call(ws.token, 'POST', '/tasks', { title: 'child', boardId: first.boardId, parentId: first.id });
      });
      expect(res.status).toBe(201);
      const seq = child.findIndex((q) => /update projects set task_seq/.test(q));
      expect(child.slice(0, seq + 1), child.join('\n')).toHaveLength(2);
      expect(child[seq], child.join('\n')).toMatch(/parent_bumped as \(update tasks set version = version \+ 1 where id = \$\d+ and version = \$\d+\s+and \(select b\.member_ids/);
      expect(child.some((q) => /^begin\b/i.test(q.trim())), child.join('\n')).toBe(false);
      const parent = await h.call(ws.token, 'GET', `/tasks/${first.id}`);
      expect(parent.body.data.subtaskIds).toEqual([res.body.data.id]);
      expect(Number(JSON.parse(parent.headers.get('etag')!))).toBe(Number(JSON.parse(got.headers.get('etag')!)) + 1);
      // The insert that moved the parent's version moved the kept parent's too: the next subtask is two statements again.
      await h.call(ws.token, 'POST', '/tasks', { title: 'child 2', boardId: first.boardId, parentId: first.id });
      const next = await queriesOf(h.runtime.db, async () => {
        res = await h.call(ws.token, 'POST', '/tasks', { title: 'child 3', boardId: first.boardId, parentId: first.id });
      });
      expect(res.status).toBe(201);
      expect(next.slice(0, next.findIndex((q) => /update projects set task_seq/.test(q)) + 1), next.join('\n')).toHaveLength(2);
    });

    it('PATCH of fields is three statements and no transaction, and wakes the outbox relay only when it queued a job', async () => {
      const other = await ws.user();
      const t = (await h.call(ws.token, 'POST', '/tasks', { title: 'patched', projectId: project.id })).body.data;
      await h.runtime.jobs.drain();
      const relay = h.runtime.jobs.relay;
      const notify = relay.notify;
      let woken = 0;
      relay.notify = () => {
        woken++;
        notify();
      };
      try {
        let res: any;
        const sql = await queriesOf(h.runtime.db, async () => {
          res = await h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { title: 'patched again', priority: 'high' });
        });
        expect(res.status).toBe(200);
        expect(res.body.data).toMatchObject({ title: 'patched again', priority: 'high' });
        expect(res.body.data).not.toHaveProperty('position');
        // The key; the task; the change (guarded by the version read) with its activity entry, answering with the
        // full form, which commits alone. No webhook lookup: the key's read found no subscription in the workspace.
        expect(sql, sql.join('\n')).toHaveLength(3);
        expect(sql[2], sql.join('\n')).toMatch(/^with "changed" as \(update "tasks" set .* where "id" = \$\d+ and "version" = \$\d+.*insert into activity/s);
        const entries = (await h.call(ws.token, 'GET', `/tasks/${t.key}/activity`)).body.data;
        expect(entries[0]).toMatchObject({ action: 'task.updated', changes: [{ field: 'title', from: 'patched', to: 'patched again' }, { field: 'priority', from: 'medium', to: 'high' }] });
        expect(woken, 'a PATCH that queued nothing woke the relay').toBe(0);
        // A new assignee is notified: that PATCH queues a job and wakes the relay.
        res = await h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { assigneeIds: [other.id] });
        expect(res.status).toBe(200);
        expect(woken).toBe(1);
        await h.runtime.jobs.drain();
        expect(res.body.data).toEqual((await h.call(ws.token, 'GET', `/tasks/${t.key}`)).body.data);
      } finally {
        relay.notify = notify;
      }
    });

    it('a PATCH of a task this process has is two statements: the key and the guarded change', async () => {
      const t = (await h.call(ws.token, 'POST', '/tasks', { title: 'patched twice', projectId: project.id })).body.data;
      await h.call(ws.token, 'GET', `/tasks/${t.key}`);
      await h.runtime.jobs.drain();
      let res: any;
      const sql = await queriesOf(h.runtime.db, async () => {
        res = await h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { title: 'patched thrice', priority: 'low' });
      });
      expect(res.status).toBe(200);
      expect(sql, sql.join('\n')).toHaveLength(2);
      expect(sql[1], sql.join('\n')).toMatch(/^with "changed" as \(update "tasks" set .*insert into activity/s);
      // Without include=position the change does not count the tasks above it; with it, the same two statements do.
      expect(sql[1], sql.join('\n')).not.toMatch(/select count\(\*\) from tasks p/);
      expect(res.body.data).not.toHaveProperty('position');
      const asked = await queriesOf(h.runtime.db, async () => {
        res = await h.call(ws.token, 'PATCH', `/tasks/${t.key}?include=position`, { priority: 'high' });
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ priority: 'high', position: expect.any(Number) });
      expect(asked, asked.join('\n')).toHaveLength(2);
      expect(asked[1], asked.join('\n')).toMatch(/select count\(\*\) from tasks p/);
      // A wrong include is refused before anything is written.
      const etag = res.headers.get('etag');
      const refused = await h.call(ws.token, 'PATCH', `/tasks/${t.key}?include=rank`, { title: 'never' });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/^query\.include/) });
      const still = await h.call(ws.token, 'GET', `/tasks/${t.key}`);
      expect([still.body.data.title, still.headers.get('etag')]).toEqual(['patched thrice', etag]);

      // Changed behind this process's memory (by another replica): the guarded change writes nothing and answers the
      // task as it is now, and the change planned on that follows: three statements, as for a task never read.
      await h.runtime.db('tasks').where({ id: t.id }).update({ title: 'elsewhere', version: h.runtime.db.raw('version + 1') });
      const stale = await queriesOf(h.runtime.db, async () => {
        res = await h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { title: 'after elsewhere' });
      });
      expect(res.status).toBe(200);
      expect(stale, stale.join('\n')).toHaveLength(3);
      expect(stale[1], stale.join('\n')).toMatch(/union all/);
      const entries = (await h.call(ws.token, 'GET', `/tasks/${t.key}/activity`)).body.data;
      expect(entries[0]).toMatchObject({ action: 'task.updated', changes: [{ field: 'title', from: 'elsewhere', to: 'after elsewhere' }] });
    });

    it('a move to the top of another column is two statements once the task and its board are known, four before', async () => {
      const [todo, doing] = project.boards[0].statuses;
      const t = (await h.call(ws.token, 'POST', '/tasks', { title: 'moved', projectId: project.id })).body.data;
      await h.runtime.jobs.drain();
      let res: any;
      // Not known yet: the key, the task, the board (with its columns and stamp), the change.
      const first = await queriesOf(h.runtime.db, async () => {
        res = await h.call(ws.token, 'POST', `/tasks/${t.key}/move`, { statusId: doing.id });
      });
      expect(res.status).toBe(201);
      expect(first.length, first.join('\n')).toBeLessThanOrEqual(4);
      // Known: the key and the change, which finds the rank and checks the version and the board's stamp.
      const again = await queriesOf(h.runtime.db, async () => {
        res = await h.call(ws.token, 'POST', `/tasks/${t.key}/move`, { statusId: todo.id });
      });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ statusId: todo.id, position: 0 });
      expect(again, again.join('\n')).toHaveLength(2);
      expect(again[1], again.join('\n')).toMatch(/^with "changed" as \(update "tasks" set .*md5\(json_build_array/s);
      const entries = (await h.call(ws.token, 'GET', `/tasks/${t.key}/activity`)).body.data;
      expect(entries.find((e: any) => e.action === 'task.moved').changes).toEqual([{ field: 'status', from: { id: doing.id, name: doing.name }, to: { id: todo.id, name: todo.name } }]);
    });

    it('a comment is two statements once the task is known: the key, then the comment with the task, its job and its entry', async () => {
      const t = (await h.call(ws.token, 'POST', '/tasks', { title: 'commented', projectId: project.id })).body.data;
      const etag = (await h.call(ws.token, 'GET', `/tasks/${t.key}`)).headers.get('etag')!;
      await h.runtime.jobs.drain();
      let res: any;
      const sql = await queriesOf(h.runtime.db, async () => {
        res = await h.call(ws.token, 'POST', `/tasks/${t.key}/comments`, { text: 'a word' });
      });
      expect(res.status).toBe(201);
      const appended = sql.findIndex((q) => /insert into comments/.test(q));
      // (What follows it is the in-process worker delivering the comment's notification.)
      expect(sql.slice(0, appended + 1), sql.join('\n')).toHaveLength(2);
      // The task this process keeps moved on with the comment: a second comment is two statements too. (The first
      // comment's notification runs on the same pool in this process; it is done before the count.)
      await h.runtime.jobs.drain();
      const again = await queriesOf(h.runtime.db, async () => {
        res = await h.call(ws.token, 'POST', `/tasks/${t.key}/comments`, { text: 'another word' });
      });
      expect(res.status).toBe(201);
      expect(again.filter((q) => /insert into comments/.test(q)), again.join('\n')).toHaveLength(1);
      expect(again.slice(0, again.findIndex((q) => /insert into comments/.test(q)) + 1), again.join('\n')).toHaveLength(2);
      const got = await h.call(ws.token, 'GET', `/tasks/${t.key}`);
      expect(got.body.data.updatedAt).toBe(res.body.data.createdAt);
      // The task's version moved with each comment (its updatedAt changed).
      expect(Number(JSON.parse(got.headers.get('etag')!))).toBe(Number(JSON.parse(etag)) + 2);
    });

    it('a bulk call of 100 items sends as many statements as one of 2: the items are read, planned and written set-wise', async () => {
      const other = await ws.user();
      const columns = project.boards[0].statuses;
      const tasks: any[] = [];
      for (let i = 0; i < 100; i++) tasks.push((await h.call(ws.token, 'POST', '/tasks', { title: `bulk ${i}`, projectId: project.id })).body.data);
      await h.runtime.jobs.drain();
      // Field edits, every third item also moved to another column, every fifth given an assignee (a job) and labels.
      const items = (n: number, round: number) => tasks.slice(0, n).map((t, i) => ({
        task: t.key, title: `bulk ${i} ${round}`, priority: ['high', 'low'][round % 2],
        ...(i % 3 === 0 ? { column: columns[(round + 1) % columns.length].name } : {}),
        ...(i % 5 === 0 ? { assigneeIds: [other.id], labels: [`l${round}`] } : {}),
      }));
      const count = async (n: number, round: number) => {
        let res: any;
        const sql = await queriesOf(h.runtime.db, async () => {
          res = await h.call(ws.token, 'POST', '/tasks/bulk', { items: items(n, round) });
        });
        expect(res.status).toBe(200);
        expect(res.body.data.map((r: any) => r.status)).toEqual(Array(n).fill(200));
        await h.runtime.jobs.drain();
        // (What follows the commit is the in-process worker delivering the assignees' notifications.)
        const commit = sql.findIndex((q) => /^commit\b/i.test(q));
        return commit < 0 ? sql : sql.slice(0, commit + 1);
      };
      const few = await count(2, 0);
      const many = await count(100, 1);
      expect(many.length, many.join('\n')).toBe(few.length);
      // The key, BEGIN, the tasks, the board, the assignees, the columns' tops, the change of them all, COMMIT.
      expect(many.length, many.join('\n')).toBeLessThanOrEqual(8);
      const moved = (await h.call(ws.token, 'GET', `/tasks/${tasks[0].key}`)).body.data;
      expect(moved).toMatchObject({ title: 'bulk 0 1', priority: 'low', statusId: columns[2].id, assigneeIds: [other.id], labels: ['l1'] });
    });

    it('a revoked key fails on the next request: nothing serves it from a cache', async () => {
      const user = await ws.user();
      const key = await ws.key(user.id);
      expect((await h.call(key.token, 'GET', '/tasks')).status).toBe(200);
      expect((await h.op('DELETE', `/keys/${key.id}`)).status).toBe(204);
      expect((await h.call(key.token, 'GET', '/tasks')).status).toBe(401);
    });
  });
});

// The tests of apps/api/src/limits.int.test.ts, folded in here (one test process and one module load for them all); their setup and state stay inside this describe.
describe('limits', () => {
  /*
   * Limits on the shape of a JSON body: nested deeper than MAX_JSON_DEPTH (64) levels, or null or not an object where
   * the endpoint takes an object, it answers 400 invalid_request naming the problem, before anything walks the value.
   * Deep bodies are written as text: JSON.stringify itself overflows the stack a few thousand levels down.
   */

  let h: Harness;
  let ws: TestWorkspace;
  let projectId: string;
  let boardId: string;
  let taskKey: string;
  let docId: string;

  /** JSON text of arrays nested `levels` deep, as the value of `field` in an object. */
  const deepBody = (levels: number, field = 'title'): string => `{"${field}":${'['.repeat(levels)}${']'.repeat(levels)}}`;

  const refused = (r: TestResponse, message: string, label: string) => {
    expect(r.status, `${label}: ${r.text.slice(0, 200)}`).toBe(400);
    expect(r.body, label).toEqual({ error: { code: 'invalid_request', message } });
  };

  beforeAll(async () => {
    h = await startHarness();
    ws = await h.workspace();
    const project = (await h.call(ws.token, 'POST', '/projects', { name: 'Web', key: 'WEB' })).body.data;
    projectId = project.id;
    boardId = project.boards[0].id;
    taskKey = (await h.call(ws.token, 'POST', '/tasks', { title: 'First', projectId })).body.data.key;
    const space = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Handbook' })).body.data;
    docId = (await h.call(ws.token, 'POST', '/docs', { spaceId: space.id, title: 'Onboarding', text: 'Welcome' })).body.data.id;
  }, 60_000);

  afterAll(() => h?.close());

  /** Every /v1 operation that takes a body, with its path filled. */
  const bodyEndpoints = (): Array<[string, string]> => [
    ['POST', '/tasks'],
    ['PATCH', `/tasks/${taskKey}`],
    ['POST', `/tasks/${taskKey}/move`],
    ['POST', `/tasks/${taskKey}/comments`],
    ['POST', `/tasks/${taskKey}/time`],
    ['POST', '/projects'],
    ['PATCH', `/projects/${projectId}`],
    ['POST', '/boards'],
    ['POST', `/boards/${boardId}/statuses`],
    ['POST', '/docs'],
    ['PATCH', `/docs/${docId}`],
    ['POST', '/notifications/read'],
  ];

  describe('a JSON body nested deeper than 64 levels', () => {
    it('answers 400 invalid_request naming the problem on every body endpoint, not 500', async () => {
      for (const [method, path] of bodyEndpoints()) {
        refused(await h.call(ws.token, method, path, deepBody(10_000)), 'body: nested deeper than 64 levels', `${method} ${path}`);
        refused(await h.call(ws.token, method, path, '['.repeat(10_000) + ']'.repeat(10_000)), 'body: nested deeper than 64 levels', `${method} ${path} array`);
      }
    });

    it('is refused before the idempotency fingerprint walks it, and the key stays free', async () => {
      const headers = { 'idempotency-key': 'deep-1' };
      refused(await h.call(ws.token, 'POST', '/tasks', deepBody(10_000), headers), 'body: nested deeper than 64 levels', 'POST /tasks keyed');
      const ok = await h.call(ws.token, 'POST', '/tasks', { title: 'Keyed', projectId }, headers);
      expect(ok.status).toBe(201);
    });

    it('a body a million levels deep (1 MB) is refused the same way, and the process keeps serving', async () => {
      refused(await h.call(ws.token, 'POST', '/tasks', deepBody(524_000)), 'body: nested deeper than 64 levels', 'POST /tasks 1 MB');
      expect((await h.call(ws.token, 'GET', `/tasks/${taskKey}`)).status).toBe(200);
    });

    it('is refused on the operator API too', async () => {
      const r = await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, deepBody(10_000, 'name'));
      refused(r, 'body: nested deeper than 64 levels', 'operator POST doc-spaces');
    });

    it('64 levels pass the depth check and reach the schema', async () => {
      const r = await h.call(ws.token, 'POST', '/tasks', deepBody(63, 'labels'));
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/body\.labels\.0: /);
      expect(r.body.error.message).not.toMatch(/nested/);
    });
  });

  describe('a null or non-object JSON body where an object is expected', () => {
    it('answers 400 on PATCH /projects, /docs and /tasks, and changes nothing', async () => {
      const before = (await h.call(ws.token, 'GET', `/tasks/${taskKey}`)).body.data;
      for (const path of [`/projects/${projectId}`, `/docs/${docId}`, `/tasks/${taskKey}`]) {
        refused(await h.call(ws.token, 'PATCH', path, 'null'), 'body: must be a JSON object, not null', `PATCH ${path}`);
      }
      const after = (await h.call(ws.token, 'GET', `/tasks/${taskKey}`)).body.data;
      expect(after.updatedAt).toBe(before.updatedAt);
    });

    it('names what came instead, on every body endpoint', async () => {
      for (const [method, path] of bodyEndpoints()) {
        refused(await h.call(ws.token, method, path, 'null'), 'body: must be a JSON object, not null', `${method} ${path}`);
        refused(await h.call(ws.token, method, path, '[]'), 'body: must be a JSON object, not an array', `${method} ${path}`);
        refused(await h.call(ws.token, method, path, '"x"'), 'body: must be a JSON object, not a string', `${method} ${path}`);
        refused(await h.call(ws.token, method, path, '7'), 'body: must be a JSON object, not a number', `${method} ${path}`);
      }
    });

    it('a missing body is still an empty one', async () => {
      for (const [method, path] of [['PATCH', `/projects/${projectId}`], ['PATCH', `/tasks/${taskKey}`], ['POST', '/notifications/read']] as const) {
        const missing = await h.call(ws.token, method, path);
        const empty = await h.call(ws.token, method, path, {});
        expect(missing.status, `${method} ${path}`).toBe(empty.status);
        expect(missing.body?.error, `${method} ${path}`).toEqual(empty.body?.error);
      }
    });
  });
});

// The tests of apps/api/src/errors.int.test.ts, folded in here (one test process and one module load for them all); their setup and state stay inside this describe.
describe('errors', () => {
  /*
   * Unexpected faults: a 500 `internal` that names the request id, the same id in the x-request-id header and
   * in the error line of the pino log, and nothing of the fault itself in the answer. The faults are real ones
   * of the database under the running app (a table gone, the connection pool closed), not a route made for tests.
   */

  interface LogLine { level: number; msg: string; req?: { id?: string; url?: string }; err?: { message?: string; stack?: string }; res?: { statusCode?: number } }

  const lines: LogLine[] = [];
  const logger = pino({ level: 'info', base: { name: 'api' } }, { write: (s: string) => void lines.push(JSON.parse(s) as LogLine) });

  let dropDb: (() => Promise<void>) | undefined;
  let runtime: Runtime;
  let server: Server;
  let base: string;
  let token: string;

  beforeAll(async () => {
    const { databaseUrl, pglite, drop } = await createTestDatabase();
    dropDb = drop;
    runtime = await createRuntime({ databaseUrl, pglite, rateLimitPerMinute: 10_000, logger: pino({ level: 'silent' }) });
    const ws = await people.createWorkspace({ name: 'Errors', plan: 'business', timezone: 'Europe/Moscow' }, runtime.deps);
    const user = await people.createUser(ws.id, { name: 'Ann', login: 'ann', role: '', isAdmin: true }, runtime.deps);
    token = (await keys.issueKey(user.id, { scopes: [...SCOPES], projectIds: null, allowedIps: [], expiresAt: null }, runtime.deps)).token;
    const { app } = createApiApp({
      deps: runtime.deps, logger, limiter: runtime.limiter, adminToken: 'errors-test-operator-token', trustProxy: false, ready: () => runtime.ready(),
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const addr = server.address();
    base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await runtime?.close().catch(() => undefined);
    await dropDb?.();
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(base + path, { headers: { authorization: `Bearer ${token}`, ...headers } });

  /** The log lines at error level (50) that carry this request id. */
  const errorLines = (id: string) => lines.filter((l) => l.level >= 50 && l.req?.id === id);

  describe('unexpected faults', () => {
    it('answer 500 internal with the request id that the error log line also carries', async () => {
      expect((await get('/v1/tasks')).status).toBe(200);
      // The schema changes under the running app: the next query of tasks fails in the database driver.
      await runtime.db.raw('alter table tasks rename to tasks_moved_away');
      try {
        const res = await get('/v1/tasks');
        expect(res.status).toBe(500);
        const id = res.headers.get('x-request-id');
        expect(id).toMatch(/^[0-9a-f-]{36}$/);
        const body = (await res.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe('internal');
        expect(body.error.message).toContain(id!);
        // The cause stays in the log, never in the answer.
        expect(body.error.message).not.toMatch(/tasks|relation|select|sql/i);
        const logged = errorLines(id!);
        expect(logged.length).toBeGreaterThan(0);
        expect(logged.some((l) => /tasks/.test(`${l.err?.message ?? ''}${l.err?.stack ?? ''}`))).toBe(true);
        expect(logged.every((l) => l.req?.url === '/v1/tasks')).toBe(true);
      } finally {
        await runtime.db.raw('alter table tasks_moved_away rename to tasks');
      }
      expect((await get('/v1/tasks')).status).toBe(200);
    });

    it('keep a sane request id sent by the client, in the answer and in the log', async () => {
      await runtime.db.raw('alter table tasks rename to tasks_moved_away');
      try {
        const res = await get('/v1/tasks', { 'x-request-id': 'trace-4711.a' });
        expect(res.status).toBe(500);
        expect(res.headers.get('x-request-id')).toBe('trace-4711.a');
        expect(((await res.json()) as { error: { message: string } }).error.message).toContain('trace-4711.a');
        expect(errorLines('trace-4711.a').length).toBeGreaterThan(0);
        // An id outside the safe alphabet (it could forge log fields) is replaced by a fresh one.
        const forged = await get('/v1/tasks', { 'x-request-id': 'id with "quotes" and spaces' });
        expect(forged.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      } finally {
        await runtime.db.raw('alter table tasks_moved_away rename to tasks');
      }
    });

    it('a closed database gives 500 internal on requests and 503 on /ready, and the process keeps serving', async () => {
      await runtime.db.destroy();
      const res = await get('/v1/me');
      expect(res.status).toBe(500);
      const id = res.headers.get('x-request-id')!;
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('internal');
      expect(errorLines(id).length).toBeGreaterThan(0);
      const ready = await fetch(`${base}/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'not_ready', checks: { database: false } });
      expect((await fetch(`${base}/health`)).status).toBe(200);
    });
  });
});
