import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListTasksQuery, SCOPES, tasks as taskService, type Actor, type Deps, type TaskFilter } from '@tt/domain';
import { isPglite, migrate, openDatabase } from './db.js';
import { taskListQueries } from './repos/tasks/index.js';
import { listSql } from './repos/tasks/list.js';
import { createStore } from './store.js';
import { createTestDatabaseUrl, dropTestDatabase, openTestPglite } from './testing.js';
import { newId } from './util.js';

/*
 * GET /tasks on a realistic table: every filter and order is served by an index (PostgreSQL only, where the
 * planner has statistics), every filter returns what it promises (both databases, checked against a plain
 * JavaScript oracle over the seeded rows), and listing a page costs the same number of queries at any size.
 */

const onPg = Boolean(process.env.TEST_DATABASE_URL);
// Enough rows on PostgreSQL for the planner to prefer indexes; PGlite only checks results, so fewer rows.
const WORKSPACES = onPg ? 8 : 2;
const TASKS_PER_WORKSPACE = onPg ? 5000 : 1200;
const USERS = 20;
const LABELS = ['backend', 'frontend', 'ux', 'infra', 'docs', 'security', 'perf', 'mobile', 'api', 'db', 'legacy', 'urgent'];
const DAY = 86_400_000;
const T0 = Date.UTC(2024, 0, 1);

interface Seeded {
  id: string; workspace_id: string; project_id: string; board_id: string; status_id: string; number: number; key: string;
  title: string; type: string; priority: string; assignee_id: string | null; assignee_ids: string[]; reporter_id: string;
  labels: string[]; due_date: string | null; parent_id: string | null; description_text: string; rank: number;
  archived_at: number | null; created_at: number; updated_at: number;
}
interface Layout {
  ws: string; users: string[]; projects: Array<{ id: string; key: string; boards: Array<{ id: string; members: string[] | null; statuses: Array<{ id: string; category: string }> }> }>;
}

/** mulberry32: a small deterministic generator, so every run seeds the same rows. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (n: number) => String(n).padStart(8, '0');

async function seedWorkspace(db: Knex, w: number, rand: () => number, rows: Seeded[]): Promise<Layout> {
  const ws = `ws_${pad(w)}`;
  await db('workspaces').insert({ id: ws, name: `Workspace ${w}`, plan: 'business', timezone: 'Europe/Moscow', created_at: T0 });
  const users = Array.from({ length: USERS }, (_, u) => `usr_${pad(w)}_${pad(u)}`);
  await db('users').insert(users.map((id, u) => ({ id, workspace_id: ws, name: `User ${u}`, login: `u${u}`, role: 'Engineer', created_at: T0 })));
  const layout: Layout = { ws, users, projects: [] };
  for (let p = 0; p < 3; p++) {
    const project = { id: `prj_${pad(w)}_${p}`, key: `P${w}X${p}`, boards: [] as Layout['projects'][number]['boards'] };
    await db('projects').insert({ id: project.id, workspace_id: ws, key: project.key, name: `Project ${p}`, created_at: T0 });
    for (let b = 0; b < 2; b++) {
      // Project 2 has a closed board without user 0 (the actor), and one closed board with it.
      const members = p === 2 ? (b === 0 ? [users[1]!] : [users[0]!, users[1]!]) : null;
      const board = { id: `brd_${pad(w)}_${p}_${b}`, members, statuses: [] as Array<{ id: string; category: string }> };
      await db('boards').insert({ id: board.id, workspace_id: ws, project_id: project.id, name: `Board ${b}`, member_ids: members });
      for (const [i, category] of ['todo', 'progress', 'done'].entries()) {
        const status = { id: `sts_${pad(w)}_${p}_${b}_${i}`, category };
        await db('statuses').insert({ id: status.id, board_id: board.id, name: category, category, position: i });
        board.statuses.push(status);
      }
      project.boards.push(board);
    }
    layout.projects.push(project);
  }
  await db('labels').insert(LABELS.map((name) => ({ workspace_id: ws, name })));

  const numbers = [0, 0, 0];
  const byProject: string[][] = [[], [], []];
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  for (let i = 0; i < TASKS_PER_WORKSPACE; i++) {
    const pi = Math.floor(rand() * 3);
    const project = layout.projects[pi]!;
    const board = pick(project.boards);
    const status = pick(board.statuses);
    const number = ++numbers[pi]!;
    const r = rand();
    const assignees = r < 0.3 ? [] : r < 0.85 ? [pick(users)] : [...new Set([pick(users), pick(users)])];
    const labels = [...new Set(Array.from({ length: Math.floor(rand() * 3) }, () => pick(LABELS)))];
    const created = T0 + w * 1000 + i * 60_000;
    const id = `task_${pad(w)}_${pad(i)}`;
    const parent = rand() < 0.1 && byProject[pi]!.length ? pick(byProject[pi]!) : null;
    byProject[pi]!.push(id);
    rows.push({
      id, workspace_id: ws, project_id: project.id, board_id: board.id, status_id: status.id, number, key: `${project.key}-${number}`,
      title: `${pick(['Fix', 'Add', 'Remove', 'Refactor', 'Document'])} ${pick(['login', 'billing', 'search', 'export', 'import', 'sync'])} ${rand() < 0.005 ? 'zeppelin' : 'flow'}`,
      type: pick(['task', 'task', 'task', 'bug', 'bug', 'story', 'epic']), priority: pick(['highest', 'high', 'medium', 'medium', 'medium', 'low', 'lowest']),
      assignee_id: assignees[0] ?? null, assignee_ids: assignees, reporter_id: pick(users), labels,
      due_date: rand() < 0.5 ? null : new Date(T0 + Math.floor(rand() * 730) * DAY).toISOString().slice(0, 10),
      parent_id: parent, description_text: rand() < 0.01 ? 'the quarterly walrus report' : 'steps to reproduce', rank: (i + 1) * 1024,
      archived_at: rand() < 0.05 ? created + DAY : null, created_at: created, updated_at: created + Math.floor(rand() * 30) * DAY,
    });
  }
  return layout;
}

const TASK_COLUMNS = [
  'id', 'workspace_id', 'project_id', 'board_id', 'status_id', 'number', 'key', 'title', 'type', 'priority', 'assignee_id', 'assignee_ids',
  'reporter_id', 'labels', 'due_date', 'parent_id', 'description_text', 'rank', 'archived_at', 'created_at', 'updated_at',
].join(', ');

async function insertTasks(db: Knex, rows: Seeded[]): Promise<void> {
  // Parents come earlier in the array, so chunks in order satisfy the parent_id foreign key.
  for (let i = 0; i < rows.length; i += 2000) {
    await db.raw(`insert into tasks (${TASK_COLUMNS}) select ${TASK_COLUMNS} from json_populate_recordset(null::tasks, ?::json)`, [
      JSON.stringify(rows.slice(i, i + 2000)),
    ]);
  }
  // Each project's counter at its last number, as the service leaves it.
  await db.raw('update projects set task_seq = (select coalesce(max(number), 0) from tasks where tasks.project_id = projects.id)');
}

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] }

function walk(node: PlanNode, out: PlanNode[] = []): PlanNode[] {
  out.push(node);
  for (const child of node.Plans ?? []) walk(child, out);
  return out;
}

async function explain(db: Knex, q: Knex.QueryBuilder): Promise<{ nodes: PlanNode[]; text: string }> {
  const { sql, bindings } = q.toSQL();
  const json = await db.raw(`explain (format json) ${sql}`, bindings as Knex.RawBinding[]);
  const text = await db.raw(`explain ${sql}`, bindings as Knex.RawBinding[]);
  const plan = (json.rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan;
  return { nodes: walk(plan), text: (text.rows as Array<Record<string, string>>).map((r) => r['QUERY PLAN']).join('\n') };
}

let url: string | undefined;
let db: Knex;
let layout: Layout;
let rows: Seeded[];

beforeAll(async () => {
  url = await createTestDatabaseUrl();
  db = openDatabase({ databaseUrl: url, pglite: url ? undefined : await openTestPglite() });
  await migrate(db);
  const rand = rng(20240101);
  rows = [];
  const layouts: Layout[] = [];
  for (let w = 0; w < WORKSPACES; w++) layouts.push(await seedWorkspace(db, w, rand, rows));
  await insertTasks(db, rows);
  // As autovacuum would: planner statistics, and the GIN pending lists merged into the indexes.
  if (!isPglite(db)) await db.raw('vacuum analyze');
  layout = layouts[0]!;
});
afterAll(async () => {
  await db?.destroy();
  await dropTestDatabase(url);
});

interface Case {
  name: string;
  filter: Partial<TaskFilter>;
  /** The rows the filter must return (before the visibility and archived defaults, which the oracle adds). */
  expect: (t: Seeded) => boolean;
  /** An index the count's plan must use: the one made for this filter (tasks_active covers board_id and status_id). */
  index?: RegExp;
}

function cases(): Case[] {
  const [p0, , p2] = layout.projects;
  const board = p0!.boards[1]!;
  const status = board.statuses[2]!;
  const user = layout.users[3]!;
  const mine = rows.filter((t) => t.workspace_id === layout.ws);
  const parent = mine.find((t) => mine.filter((c) => c.parent_id === t.id).length >= 2)!;
  const someKey = mine[17]!.key;
  const since = T0 + 29.5 * DAY;
  return [
    { name: 'no filter', filter: {}, expect: () => true },
    { name: 'projectId', filter: { projectId: p2!.id }, expect: (t) => t.project_id === p2!.id, index: /tasks_project_id/ },
    { name: 'boardId', filter: { boardId: board.id }, expect: (t) => t.board_id === board.id, index: /tasks_board_id|tasks_active/ },
    { name: 'statusId', filter: { statusId: status.id }, expect: (t) => t.status_id === status.id, index: /tasks_status|tasks_active/ },
    { name: 'category', filter: { category: 'done' }, expect: (t) => catOf(t) === 'done' },
    { name: 'assigneeId', filter: { assigneeId: user }, expect: (t) => t.assignee_ids.includes(user), index: /tasks_assignees/ },
    { name: 'assigneeId=none', filter: { assigneeId: 'none' }, expect: (t) => t.assignee_ids.length === 0, index: /tasks_unassigned/ },
    { name: 'reporterId', filter: { reporterId: user }, expect: (t) => t.reporter_id === user, index: /tasks_reporter_id/ },
    { name: 'type', filter: { types: ['epic', 'story'] }, expect: (t) => t.type === 'epic' || t.type === 'story' },
    { name: 'priority', filter: { priorities: ['highest'] }, expect: (t) => t.priority === 'highest' },
    { name: 'labels all-of', filter: { labels: ['backend', 'api'] }, expect: (t) => t.labels.includes('backend') && t.labels.includes('api'), index: /tasks_labels/ },
    { name: 'parentId', filter: { parentId: parent.id }, expect: (t) => t.parent_id === parent.id, index: /tasks_parent_id/ },
    { name: 'parentId by key', filter: { parentId: parent.key }, expect: (t) => t.parent_id === parent.id, index: /tasks_parent_id/ },
    { name: 'parentId=none', filter: { parentId: 'none' }, expect: (t) => t.parent_id === null },
    { name: 'dueBefore', filter: { dueBefore: '2024-01-20' }, expect: (t) => t.due_date !== null && t.due_date <= '2024-01-20', index: /tasks_due/ },
    { name: 'updatedSince', filter: { updatedSince: since }, expect: (t) => t.updated_at > since, index: /tasks_updated|tasks_order_updated/ },
    { name: 'q full text', filter: { q: 'zeppelin' }, expect: (t) => t.title.includes('zeppelin'), index: /tasks_search/ },
    { name: 'q in description', filter: { q: 'walrus' }, expect: (t) => t.description_text.includes('walrus'), index: /tasks_search/ },
    { name: 'q task key', filter: { q: someKey.toLowerCase() }, expect: (t) => t.key === someKey, index: /tasks_workspace_id_key_unique/ },
    { name: 'archived=true', filter: { archived: 'true' }, expect: (t) => t.archived_at !== null, index: /tasks_archived/ },
    { name: 'archived=all', filter: { archived: 'all' }, expect: () => true },
    {
      name: 'orderBy=position', filter: { statusId: status.id, orderBy: 'position' }, expect: (t) => t.status_id === status.id, index: /tasks_status_rank/,
    },
    { name: 'key limited to projects', filter: { visibleProjectIds: [p0!.id, p2!.id] }, expect: (t) => t.project_id === p0!.id || t.project_id === p2!.id },
    {
      name: 'counters: board + type + priority, archived=all', filter: { boardId: board.id, types: ['bug', 'task'], priorities: ['medium', 'low'], archived: 'all' },
      expect: (t) => t.board_id === board.id && ['bug', 'task'].includes(t.type) && ['medium', 'low'].includes(t.priority),
    },
    {
      name: 'label counters: project + labels, archived=all', filter: { projectId: p0!.id, labels: ['backend'], archived: 'all' },
      expect: (t) => t.project_id === p0!.id && t.labels.includes('backend'),
    },
    { name: 'counters: project + category, archived=true', filter: { projectId: p0!.id, category: 'todo', archived: 'true' }, expect: (t) => t.project_id === p0!.id && catOf(t) === 'todo' && t.archived_at !== null },
    {
      name: 'mix: project + category + assignee + priority', filter: { projectId: p0!.id, category: 'progress', assigneeId: user, priorities: ['high', 'highest'] },
      expect: (t) => t.project_id === p0!.id && catOf(t) === 'progress' && t.assignee_ids.includes(user) && ['high', 'highest'].includes(t.priority),
    },
  ];
}

function catOf(t: Seeded): string {
  for (const p of layout.projects) for (const b of p.boards) for (const s of b.statuses) if (s.id === t.status_id) return s.category;
  return '';
}

function visibleToActor(t: Seeded): boolean {
  for (const p of layout.projects) for (const b of p.boards) if (b.id === t.board_id) return b.members === null || b.members.includes(layout.users[0]!);
  return false;
}

const rowsOf = (result: unknown): unknown[] => (result as { rows: unknown[] }).rows;

const fullFilter = (f: Partial<TaskFilter>): TaskFilter => ({
  workspaceId: layout.ws, visibleProjectIds: null, userId: layout.users[0]!, archived: 'false', orderBy: 'created', ...f,
});

describe('GET /tasks filters', () => {
  it('return exactly the matching visible tasks, with the count, on this database', async () => {
    for (const c of cases()) {
      const f = fullFilter(c.filter);
      const want = rows
        .filter((t) => t.workspace_id === layout.ws && visibleToActor(t) && c.expect(t))
        .filter((t) => (f.archived === 'all' ? true : f.archived === 'true' ? t.archived_at !== null : t.archived_at === null));
      // Each filter must match something and leave something out, or the check proves nothing.
      expect(want.length, c.name).toBeGreaterThan(0);
      if (c.name !== 'no filter' && c.name !== 'archived=all') expect(want.length, c.name).toBeLessThan(TASKS_PER_WORKSPACE);
      const q = taskListQueries(db, f, { limit: 500 });
      // Rows and total come back from one statement: the total on every row.
      const page = (await q.page) as Array<{ id: string | null; total: unknown }>;
      expect(Number(page[0]!.total), c.name).toBe(want.length);
      const ordered = c.filter.orderBy === 'position' ? [...want].sort((a, b) => a.rank - b.rank || (a.id < b.id ? -1 : 1)) : want;
      expect(page.map((r) => r.id), c.name).toEqual(ordered.slice(0, 501).map((t) => t.id));
    }
  });

  it('a label, a due date, a person (alone or with a category) or updatedSince alone: every page the same, whether it walks the ids or sorts the matches', async () => {
    // Which way a page goes depends on the total, the active tasks and the page's size (`gateOf`): a page of 1 walks
    // for a label or date that many tasks match, a page of 500 sorts any but the commonest, so these take both ways.
    // updatedSince walks at most 1 000 tasks: a time most tasks changed after fills a small page within them, a page
    // of 500 or a time few changed after does not. The pages are read with the statement the service runs (`listSql`).
    type Case = [Partial<TaskFilter>, (t: Seeded) => boolean];
    const cases: Case[] = [
      ...[['backend'], ['backend', 'api'], ['nothing']].map((labels): Case => [{ labels }, (t) => labels.every((l) => t.labels.includes(l))]),
      ...['2024-01-20', '2030-01-01', '2000-01-01'].map((day): Case => [{ dueBefore: day }, (t) => t.due_date !== null && t.due_date <= day]),
      ...[T0 + 2 * DAY, T0 + 25 * DAY, T0 + 1000 * DAY].map((since): Case => [{ updatedSince: since }, (t) => t.updated_at > since]),
      // A person with tasks walks for a small page and sorts for a large one; one with none always sorts.
      ...[layout.users[1]!, 'usr_nobody'].map((who): Case => [{ assigneeId: who }, (t) => t.assignee_ids.includes(who)]),
      [{ assigneeId: layout.users[1]!, category: 'progress' }, (t) => t.assignee_ids.includes(layout.users[1]!) && catOf(t) === 'progress'],
    ];
    for (const [filter, match] of cases) {
      const name = JSON.stringify(filter);
      const want = rows.filter((t) => t.workspace_id === layout.ws && t.archived_at === null && visibleToActor(t) && match(t)).map((t) => t.id);
      for (const limit of [1, 3, 20, 500]) {
        let after: string | undefined;
        for (let page = 0; page < 3; page++) {
          const { sql, bindings } = listSql(db, fullFilter(filter), { limit, after });
          const got = rowsOf(await db.raw(sql, bindings as Knex.RawBinding[])) as Array<{ id: string | null; total: unknown }>;
          const at = after === undefined ? 0 : want.indexOf(after) + 1;
          expect(Number(got[0]!.total), `${name} limit ${limit}`).toBe(want.length);
          expect(got.filter((r) => r.id !== null).map((r) => r.id), `${name} limit ${limit} page ${page}`).toEqual(want.slice(at, at + limit + 1));
          after = want[at + limit - 1];
          if (after === undefined) break;
        }
      }
    }
  });

  it('a gated filter on a workspace without tasks: an empty page and a total of 0 (the walk\'s bound divides by the total)', async () => {
    for (const filter of [{ labels: ['backend'] }, { dueBefore: '2030-01-01' }, { assigneeId: 'usr_x' }, { assigneeId: 'usr_x', category: 'todo' as const }]) {
      const { sql, bindings } = listSql(db, fullFilter({ ...filter, workspaceId: 'ws_without_tasks' }), { limit: 20 });
      const got = rowsOf(await db.raw(sql, bindings as Knex.RawBinding[])) as Array<{ id: string | null; total: unknown }>;
      expect(got.map((r) => [Number(r.total), r.id]), JSON.stringify(filter)).toEqual([[0, null]]);
    }
  });

  it.runIf(onPg)('are each served by an index: no sequential scan of tasks in any plan', async () => {
    expect(isPglite(db)).toBe(false);
    const report: string[] = [];
    const failures: string[] = [];
    for (const c of cases()) {
      const q = taskListQueries(db, fullFilter(c.filter), { limit: 100 });
      for (const [part, builder] of [['page', q.page], ['rows', q.rows], ['count', q.count]] as const) {
        const plan = await explain(db, builder);
        report.push(`-- ${c.name} (${part}${part === 'count' && q.counters ? ' from the counters' : ''})\n${plan.text}`);
        if (plan.nodes.some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'tasks')) failures.push(`${c.name} (${part}): seq scan on tasks`);
        if (part !== 'count') continue;
        // A total the counters can give reads no task at all; any other is counted on its filter's index.
        if (q.counters && plan.nodes.some((n) => n['Relation Name'] === 'tasks')) failures.push(`${c.name} (count): reads tasks instead of the counters`);
        if (!q.counters && c.index && !plan.nodes.some((n) => c.index!.test(n['Index Name'] ?? ''))) {
          failures.push(`${c.name} (count): does not use ${c.index.source}`);
        }
      }
    }
    if (process.env.PRINT_PLANS) console.log(report.join('\n\n'));
    expect(failures, report.join('\n\n')).toEqual([]);
  });
});

describe('GET /tasks queries per page', () => {
  it('stay the same for a page of 1 and a page of 500 (no query per task)', async () => {
    const store = createStore(db);
    const workspace = (await store.workspaces.get(layout.ws))!;
    const user = (await store.users.get(layout.ws, layout.users[0]!))!;
    const actor: Actor = { workspace, user, key: { id: 'key_test', scopes: [...SCOPES], projectIds: null } };
    const deps: Deps = { store, now: () => Date.now(), newId, jobs: { notify: () => undefined }, rateLimitPerMinute: 120 };
    const count = async (query: Record<string, string>) => {
      let n = 0;
      const listener = () => void n++;
      db.on('query', listener);
      try {
        const page = await taskService.listTasks(actor, ListTasksQuery.parse(query), deps);
        return { n, size: page.data.length };
      } finally {
        db.off('query', listener);
      }
    };
    const small = await count({ limit: '1' });
    const large = await count({ limit: '500' });
    expect(small.size).toBe(1);
    expect(large.size).toBe(500);
    expect(large.n).toBe(small.n);
    // One statement: rows and total together.
    expect(large.n).toBe(1);
    const column = layout.projects[0]!.boards[0]!.statuses[0]!.id;
    const byPosition = await count({ limit: '500', statusId: column, orderBy: 'position' });
    expect(byPosition.n).toBe(small.n);
  });
});
