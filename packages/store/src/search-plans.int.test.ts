import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from './db.js';
import { createStore } from './store.js';
import { createTestDatabaseUrl, dropTestDatabase } from './testing.js';

/*
 * Full-text search over pages and meetings, and time reports over a period, are served by their indexes, not by a
 * sequential scan of every row. Plans are checked on PostgreSQL, where the planner has statistics.
 */
const onPg = Boolean(process.env.TEST_DATABASE_URL);

let url: string | undefined;
let db: Knex;
const WS = 'ws_plan';
const USER = 'usr_plan';

/** Runs `fn`, catching the SQL the repository sends, and returns the plan of its first statement matching `table`. */
async function planOf(table: string, fn: () => Promise<unknown>): Promise<string> {
  const seen: Array<{ sql: string; bindings: unknown[] }> = [];
  const listener = (q: { sql: string; bindings: unknown[] }) => seen.push(q);
  db.on('query', listener);
  try {
    await fn();
  } finally {
    db.removeListener('query', listener);
  }
  const q = seen.find((s) => s.sql.includes(`from "${table}"`) && !s.sql.startsWith('select count'))!;
  expect(q, `no query on ${table}`).toBeDefined();
  const res = await db.raw(`explain ${q.sql.replace(/\$\d+/g, '?')}`, q.bindings as never);
  return (res.rows as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']).join('\n');
}

describe.skipIf(!onPg)('search and report plans on PostgreSQL', () => {
  beforeAll(async () => {
    url = await createTestDatabaseUrl();
    db = openDatabase({ databaseUrl: url });
    await migrate(db);
    const now = Date.now();
    await db('workspaces').insert({ id: WS, name: 'Plans', plan: 'business', timezone: 'Europe/Moscow', created_at: now });
    await db('users').insert({ id: USER, workspace_id: WS, name: 'Planner', login: 'planner', created_at: now });
    await db('doc_spaces').insert({ id: 'space_plan', workspace_id: WS, name: 'Space', member_ids: null, created_at: now });
    await db.raw(
      `insert into docs (id, workspace_id, space_id, path, title, content_html, text, author_id, created_at, updated_at)
       select 'doc_' || lpad(g::text, 8, '0'), ?, 'space_plan', 'space_plan/doc_' || lpad(g::text, 8, '0'),
              'Page ' || g || case when g % 1000 = 0 then ' deployment runbook' else ' notes' end,
              '', 'Lorem ipsum text number ' || g || case when g % 997 = 0 then ' развертывание серверов' else '' end,
              ?, ?, ?
       from generate_series(1, 30000) g`,
      [WS, USER, now, now],
    );
    await db.raw(
      `insert into meetings (id, workspace_id, title, folder_id, created_by, started_at, status, participants, summary_text)
       select 'meet_' || lpad(g::text, 8, '0'), ?, 'Sync ' || g || case when g % 5000 = 0 then ' migration review' else '' end,
              null, ?, ?::bigint - g * 60000, 'done', '{}', 'Summary ' || g
       from generate_series(1, 30000) g`,
      [WS, USER, now],
    );
    await db('projects').insert({ id: 'prj_plan', workspace_id: WS, key: 'PLN', name: 'Plan', created_at: now });
    await db('boards').insert({ id: 'brd_plan', workspace_id: WS, project_id: 'prj_plan', name: 'Board', member_ids: null });
    await db('statuses').insert({ id: 'sts_plan', board_id: 'brd_plan', name: 'To do', category: 'todo', position: 0 });
    await db('tasks').insert({
      id: 'task_plan', workspace_id: WS, project_id: 'prj_plan', board_id: 'brd_plan', status_id: 'sts_plan', number: 1, key: 'PLN-1',
      title: 'Plan', type: 'task', priority: 'medium', assignee_ids: [], reporter_id: USER, labels: [], rank: 1, created_at: now, updated_at: now,
    });
    await db.raw(
      `insert into time_logs (id, workspace_id, task_id, project_id, user_id, seconds, date, note, created_at)
       select 'time_' || lpad(g::text, 8, '0'), ?, 'task_plan', 'prj_plan', ?, 600, date '2024-01-01' + (g % 900), '', ?
       from generate_series(1, 60000) g`,
      [WS, USER, now],
    );
    await db.raw('analyze');
  }, 120_000);
  afterAll(async () => {
    await db?.destroy();
    await dropTestDatabase(url);
  });

  it('page search uses the text index and finds English and Russian words', async () => {
    const store = createStore(db);
    const plan = await planOf('docs', () => store.docs.list({ workspaceId: WS, userId: USER, q: 'deploying' }, { limit: 100 }));
    expect(plan).toContain('docs_search');
    expect(plan).not.toMatch(/Seq Scan on docs/);
    expect((await store.docs.list({ workspaceId: WS, userId: USER, q: 'deploying' }, { limit: 100 })).total).toBe(30);
    expect((await store.docs.list({ workspaceId: WS, userId: USER, q: 'развертывания' }, { limit: 100 })).total).toBe(30);
  });

  it('meeting search uses the text index', async () => {
    const store = createStore(db);
    const f = { workspaceId: WS, userId: USER, teamIds: [], visibleProjectIds: null, q: 'migrations' };
    const plan = await planOf('meetings', () => store.meetings.list(f, { limit: 20 }));
    expect(plan).toContain('meetings_search');
    expect(plan).not.toMatch(/Seq Scan on meetings/);
    expect((await store.meetings.list(f, { limit: 20 })).total).toBe(6);
  });

  it('a time report sums the daily rollup, not every log, and the rollup follows every write', async () => {
    const store = createStore(db);
    const f = { workspaceId: WS, userId: USER, visibleProjectIds: null, from: '2024-03-01', to: '2024-03-31' };
    const plan = await planOf('time_daily', () => store.timeLogs.report(f, ['user', 'task', 'day']));
    expect(plan).not.toMatch(/on time_logs/);
    expect(plan).not.toMatch(/Seq Scan on time_daily/);
    const rows = await store.timeLogs.report(f, ['user', 'task', 'day']);
    expect(rows).toHaveLength(31);
    expect(rows.reduce((s, r) => s + r.entries, 0)).toBe(31 * Math.round(60000 / 900));
    // Deleting and changing logs moves the sums in the same statement; a day left without logs leaves no group.
    await db('time_logs').where('date', '2024-03-05').delete();
    await db('time_logs').where('date', '2024-03-06').update({ seconds: 60 });
    const after = await store.timeLogs.report(f, ['day']);
    const raw = await db('time_logs').whereBetween('date', [f.from, f.to]).select('date').sum({ seconds: 'seconds' }).count({ entries: '*' }).groupBy('date').orderBy('date');
    const byDay = [...after].sort((a, b) => (a.day! < b.day! ? -1 : 1));
    expect(byDay.map((r) => [r.day, r.seconds, r.entries])).toEqual(raw.map((r: any) => [String(r.date).slice(0, 10), Number(r.seconds), Number(r.entries)]));
    expect(after.find((r) => r.day === '2024-03-05')).toBeUndefined();
  });
});
