import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityFilter } from '@tt/domain';
import { migrate, openDatabase } from './db.js';
import { activityRepo } from './repos/activity.js';
import { createTestDatabaseUrl, dropTestDatabase } from './testing.js';

/*
 * The activity feed leaves out, in the statement of the page, the entries of boards, spaces and meetings the reader
 * may not open. Each check must cost what a page costs whatever the workspace holds: closed boards and spaces are few
 * (a small list each), but a workspace's meetings are many, so the meeting of an entry is probed by its key, for the
 * entries that name one, never by reading every meeting. PostgreSQL only: the planner's choices depend on its
 * statistics.
 */

const onPg = Boolean(process.env.TEST_DATABASE_URL);
const NOW = Date.UTC(2026, 0, 1);
const WS = 'ws_act_plans';
const MEETINGS = 20_000;
const ENTRIES = 20_000;

let db: Knex;
let url: string | undefined;

beforeAll(async () => {
  if (!onPg) return;
  url = await createTestDatabaseUrl();
  db = openDatabase({ databaseUrl: url, statementTimeoutMs: 0 });
  await migrate(db);
  await db('workspaces').insert({ id: WS, name: 'Plans', plan: 'business', timezone: 'UTC', created_at: NOW });
  await db('users').insert({ id: 'usr_reader', workspace_id: WS, name: 'Reader', login: 'reader', role: '', created_at: NOW });
  await db('projects').insert({ id: 'prj_1', workspace_id: WS, key: 'PL', name: 'Plans', created_at: NOW });
  await db('boards').insert([
    { id: 'brd_open', workspace_id: WS, project_id: 'prj_1', name: 'Open', member_ids: null },
    { id: 'brd_closed', workspace_id: WS, project_id: 'prj_1', name: 'Closed', member_ids: ['usr_other'] },
  ]);
  await db('doc_spaces').insert({ id: 'spc_closed', workspace_id: WS, name: 'Closed', description: '', member_ids: ['usr_other'], created_at: NOW });
  await db('meeting_folders').insert([
    { id: 'mf_open', workspace_id: WS, name: 'Open', team_ids: [], created_at: NOW },
    { id: 'mf_team', workspace_id: WS, name: 'Team', team_ids: ['team_other'], created_at: NOW },
  ]);
  await db.raw(
    `insert into meetings (id, workspace_id, title, url, folder_id, project_id, created_by, started_at, status, participants, summary_text)
     select 'meet_' || g, ?, 'Meeting ' || g, '', case when g % 3 = 0 then null when g % 3 = 1 then 'mf_open' else 'mf_team' end, null,
            'usr_reader', ?::bigint + g, 'done', '{}', '' from generate_series(1, ?) g`,
    [WS, NOW, MEETINGS],
  );
  // A task entry on an open or closed board, a page entry now and then, and one entry in a hundred naming a meeting.
  await db.raw(
    `insert into activity (id, workspace_id, at, actor_id, channel, key_id, project_id, board_id, space_id, task_id, task_key, doc_id, meeting_id, action, changes)
     select 'act_' || lpad(g::text, 9, '0'), ?, ?::bigint + g, 'usr_reader', 'rest', 'key_1',
            case when g % 10 = 9 then null else 'prj_1' end,
            case when g % 10 = 9 then null when g % 7 = 0 then 'brd_closed' else 'brd_open' end,
            case when g % 10 = 9 then 'spc_closed' else null end,
            case when g % 10 = 9 then null else 'task_' || g end, 'PL-' || g,
            case when g % 10 = 9 then 'doc_' || g else null end,
            case when g % 100 = 1 then 'meet_' || (g % ? + 1) else null end,
            case when g % 10 = 9 then 'doc.updated' when g % 100 = 1 then 'task.created_from_agreement' else 'task.updated' end, '[]'::jsonb
     from generate_series(1, ?) g`,
    [WS, NOW, MEETINGS, ENTRIES],
  );
  await db.raw('analyze');
}, 300_000);

afterAll(async () => {
  if (!onPg) return;
  await db.destroy();
  await dropTestDatabase(url);
});

const literal = (v: unknown): string => {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `array[${v.map(literal).join(', ')}]::text[]`;
  return `'${String(v).replace(/'/g, "''")}'`;
};

/** The statements a list of the feed runs (the page and its count), each explained with its values. */
async function plans(f: ActivityFilter): Promise<string[]> {
  const seen: Array<{ sql: string; bindings: unknown[] }> = [];
  const listen = (q: { sql: string; bindings?: unknown[] }) => seen.push({ sql: q.sql, bindings: q.bindings ?? [] });
  db.on('query', listen);
  try {
    await activityRepo(db).list(f, { limit: 50, countAtMost: 1000 });
  } finally {
    db.off('query', listen);
  }
  const out: string[] = [];
  for (const q of seen) {
    const sql = q.sql.replace(/\$(\d+)/g, (_m, n: string) => literal(q.bindings[Number(n) - 1]));
    const res = /\$\d/.test(q.sql) ? await db.raw(`explain (analyze, buffers) ${sql}`) : await db.raw(`explain (analyze, buffers) ${q.sql}`, q.bindings as any);
    out.push(res.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'));
  }
  return out;
}

describe.skipIf(!onPg)(`the activity feed's visibility at ${MEETINGS} meetings`, () => {
  const reader: ActivityFilter = { workspaceId: WS, userId: 'usr_reader', visibleProjectIds: null, teamIds: [], pages: true, meetings: true };

  it('walks the feed index and probes each named meeting by its key: no read of every meeting, a page about as cheap as without meetings', async () => {
    const withMeetings = await plans(reader);
    expect(withMeetings).toHaveLength(2);
    for (const plan of withMeetings) {
      expect(plan).toContain('Index Scan using activity_feed on activity');
      expect(plan).toContain('Index Scan using meetings_pkey on meetings');
      expect(plan).not.toMatch(/Seq Scan on meetings|Seq Scan on activity/);
    }
    const buffers = (plan: string) => Number(/Buffers: shared hit=(\d+)/.exec(plan)?.[1] ?? NaN);
    const without = await plans({ ...reader, meetings: false });
    // The page of 50 visits a meeting or two by key; a hash of the reader's meetings would read hundreds of blocks.
    expect(buffers(withMeetings[0]!)).toBeLessThan(buffers(without[0]!) + 30);
  });
});
