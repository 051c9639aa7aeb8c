import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskFilter } from '@tt/domain';
import { migrate, openDatabase } from './db.js';
import { taskListQueries } from './repos/tasks/index.js';
import { listSql, preparedShape } from './repos/tasks/list.js';
import { createTestDatabaseUrl, dropTestDatabase } from './testing.js';

/*
 * The plan of every GET /tasks filter shape as it runs: a prepared statement's generic plan (the one PostgreSQL
 * settles on for a shape after its first executions) must read no more than the plan made for the values, or the
 * shape must not be prepared; no plan runs parallel workers or scans tasks sequentially; and a page in id, column or
 * sort-key order walks its index and stops, so it reads about as much at 40 000 tasks as at 4 000. Checked at both
 * sizes, by the buffers EXPLAIN ANALYZE counts (the time varies with the machine's load, the buffers do not).
 * PostgreSQL only: the planner's choices depend on its statistics.
 */

const onPg = Boolean(process.env.TEST_DATABASE_URL);
const SIZES = [4_000, 40_000];
const PROJECTS = 10;
const USERS = 30;
const LABELS = ['backend', 'frontend', 'ux', 'infra', 'docs', 'security', 'perf', 'mobile', 'api', 'db'];
const NOW = Date.UTC(2026, 0, 1);
const NEWCOMER = 'usr_plans_new';

interface World { db: Knex; url: string | undefined; ws: string; users: string[]; projects: string[]; statuses: string[]; boards: string[] }

/** One workspace like the benchmark's (10 projects, 2 boards each, 4 columns a board, 30 people) and `n` tasks, by SQL. */
async function seed(n: number): Promise<World> {
  const url = await createTestDatabaseUrl();
  const db = openDatabase({ databaseUrl: url, statementTimeoutMs: 0 });
  await migrate(db);
  const ws = 'ws_plans';
  await db('workspaces').insert({ id: ws, name: 'Plans', plan: 'business', timezone: 'Europe/Moscow', created_at: NOW });
  const users = Array.from({ length: USERS }, (_, u) => `usr_plans_${String(u).padStart(3, '0')}`);
  await db('users').insert(users.map((id, u) => ({ id, workspace_id: ws, name: `User ${u}`, login: `u${u}`, role: 'Engineer', created_at: NOW })));
  await db('labels').insert(LABELS.map((name) => ({ workspace_id: ws, name })));
  const projects: string[] = [];
  const boards: string[] = [];
  const statuses: string[] = [];
  for (let p = 0; p < PROJECTS; p++) {
    const project = `prj_plans_${p}`;
    projects.push(project);
    await db('projects').insert({ id: project, workspace_id: ws, key: `PL${p}`, name: `Project ${p}`, created_at: NOW });
    for (let b = 0; b < 2; b++) {
      const board = `brd_plans_${p}_${b}`;
      boards.push(board);
      await db('boards').insert({ id: board, workspace_id: ws, project_id: project, name: `Board ${b}`, member_ids: null });
      for (const [i, category] of ['todo', 'progress', 'progress', 'done'].entries()) {
        statuses.push(`sts_plans_${p}_${b}_${i}`);
        await db('statuses').insert({ id: statuses.at(-1), board_id: board, name: `${category} ${i}`, category, position: i });
      }
    }
  }
  await db.raw(
    `insert into tasks (id, workspace_id, project_id, board_id, status_id, number, key, title, type, priority, assignee_id, assignee_ids,
                        reporter_id, labels, due_date, description_text, rank, archived_at, created_at, updated_at)
     select 'task_' || lpad(g::text, 9, '0'), :ws, c.pid, c.bid, c.sid, g, c.pkey || '-' || g,
            'Fix flow ' || g || case when g % 500 = 1 then ' zeppelin' else '' end,
            (array['task','task','task','bug','bug','story','epic'])[1 + (g / 3) % 7],
            (array['highest','high','medium','medium','medium','low','lowest'])[1 + (g / 11) % 7],
            case when g % 10 < 3 then null else (:users::text[])[1 + (g * 7) % :nusers] end,
            case when g % 10 < 3 then '{}'::text[] else array[(:users::text[])[1 + (g * 7) % :nusers]] end,
            (:users::text[])[1 + (g * 3) % :nusers],
            case g % 4 when 0 then '{}'::text[] when 1 then array[(:labels::text[])[1 + g % 10]]
                       else array[(:labels::text[])[1 + g % 10], (:labels::text[])[1 + (g / 10) % 10]] end,
            case when g % 2 = 0 then date '2025-01-01' + (g % 700) end,
            'Steps ' || g, g * 1024.0,
            case when g % 25 = 0 then :now::bigint end,
            :now::bigint - (:n - g)::bigint * 60000,
            :now::bigint - (:n - g)::bigint * 60000 + (g % 30) * 1000
     from generate_series(1, :n) g
     join (select row_number() over (order by s.id) - 1 as idx, s.id as sid, b.id as bid, b.project_id as pid, p.key as pkey
           from statuses s join boards b on b.id = s.board_id join projects p on p.id = b.project_id where b.workspace_id = :ws) c
       on c.idx = g % :ncols`,
    { ws, users, nusers: USERS, labels: LABELS, now: NOW, n, ncols: statuses.length },
  );
  // Someone new: the assigned tasks among the newest tenth are theirs, and none before (a gated walk meets them last).
  await db('users').insert({ id: NEWCOMER, workspace_id: ws, name: 'Newcomer', login: 'newcomer', role: 'Engineer', created_at: NOW });
  await db.raw("update tasks set assignee_id = ?, assignee_ids = array[?]::text[] where workspace_id = ? and number > ? and assignee_id is not null", [
    NEWCOMER, NEWCOMER, ws, Math.floor(n * 0.9),
  ]);
  // Each project's counter as the service leaves it: its tasks are numbered 1, 2, ... in the project (here the numbers
  // run over the workspace, so the counter is the project's count of tasks, not its highest number).
  await db.raw('update projects set task_seq = (select count(*) from tasks where tasks.project_id = projects.id) where workspace_id = ?', [ws]);
  // As autovacuum would: planner statistics, the visibility map and the GIN pending lists.
  await db.raw('vacuum analyze');
  return { db, url, ws, users, projects, statuses, boards };
}

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; 'Index Cond'?: string; 'Join Filter'?: string; 'Shared Hit Blocks'?: number; 'Shared Read Blocks'?: number; Plans?: PlanNode[] }
const walk = (node: PlanNode, out: PlanNode[] = []): PlanNode[] => (out.push(node), (node.Plans ?? []).forEach((c) => walk(c, out)), out);

const literal = (v: unknown): string => {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `array[${v.map(literal).join(', ')}]::text[]`;
  return `'${String(v).replace(/'/g, "''")}'`;
};

/** The page statement as the service runs it (`listSql`: a prepared shape reads its values through subqueries). */
function served(w: World, f: TaskFilter, after: string | undefined): { sql: string; bindings: readonly unknown[] } {
  const { sql, bindings } = listSql(w.db, f, { limit: 100, after });
  return w.db.raw(sql, bindings as Knex.RawBinding[]).toSQL().toNative();
}

/**
 * The page statement of `f` prepared on one connection, explained under the plan made for its values (Knex's text,
 * the values in sight of the planner) and under the generic plan of the text the service prepares.
 */
async function plans(w: World, f: TaskFilter, after?: string): Promise<Record<'custom' | 'generic', { nodes: PlanNode[]; buffers: number }>> {
  const forValues = taskListQueries(w.db, f, { limit: 100, after }).page.toSQL().toNative();
  const conn = await w.db.client.acquireConnection();
  try {
    const run = (text: string) => conn.query(text) as Promise<{ rows: Array<Record<string, any>> }>;
    await run('deallocate all');
    const out = {} as Record<'custom' | 'generic', { nodes: PlanNode[]; buffers: number }>;
    for (const mode of ['custom', 'generic'] as const) {
      const { sql, bindings } = mode === 'custom' ? forValues : served(w, f, after);
      await run(`prepare shape as ${sql}`);
      await run(`set plan_cache_mode = force_${mode}_plan`);
      const res = await run(`explain (analyze, buffers, format json) execute shape(${bindings.map(literal).join(', ')})`);
      await run('deallocate shape');
      const plan = (res.rows[0]!['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan;
      out[mode] = { nodes: walk(plan), buffers: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0) };
    }
    await run('reset plan_cache_mode');
    return out;
  } finally {
    w.db.client.releaseConnection(conn);
  }
}

interface Shape {
  name: string; filter: (w: World) => Partial<TaskFilter>; after?: (w: World) => string; early?: boolean; scan?: boolean;
  /** Buffers the page may read at any size. */
  budget?: number;
  /** Reads tasks from indexes alone but for the page's rows (by primary key): a walk over an index that covers it. */
  indexOnly?: boolean;
}

/** Every filter of GET /tasks (and the MCP's "my open tasks"), by shape. `early`: an ordered walk that stops at the page. */
const SHAPES: Shape[] = [
  { name: 'no filter', filter: () => ({}), early: true },
  { name: 'no filter, next page', filter: () => ({}), after: () => 'task_000001000', early: true },
  { name: 'projectId', filter: (w) => ({ projectId: w.projects[3] }), early: true },
  { name: 'projectId + category', filter: (w) => ({ projectId: w.projects[3], category: 'todo' }), early: true },
  { name: 'category', filter: () => ({ category: 'progress' }), early: true },
  { name: 'boardId', filter: (w) => ({ boardId: w.boards[5] }), early: true },
  { name: 'statusId, orderBy=position', filter: (w) => ({ statusId: w.statuses[9], orderBy: 'position' }), early: true },
  { name: 'assigneeId=none', filter: () => ({ assigneeId: 'none' }) },
  { name: 'priority', filter: () => ({ priorities: ['high', 'highest'] }), early: true },
  { name: 'type', filter: () => ({ types: ['bug'] }), early: true },
  // Every seeded task is top-level: the count reads them all, and at 40 000 the table is the cheapest way to.
  { name: 'parentId=none', filter: () => ({ parentId: 'none' }), scan: true },
  { name: 'archived=true', filter: () => ({ archived: 'true' }) },
  { name: 'key limited to projects', filter: (w) => ({ visibleProjectIds: [w.projects[1]!, w.projects[2]!] }), early: true },
  { name: 'orderBy=priority', filter: () => ({ orderBy: 'priority' }), early: true },
  { name: 'projectId, orderBy=dueDate', filter: (w) => ({ projectId: w.projects[3], orderBy: 'dueDate' }) },
  { name: 'orderBy=updated', filter: () => ({ orderBy: 'updated' }), early: true },
  // A person and a search text are prepared: their page is a top-N of the match set, read from its own index for
  // any value. users[0] and users[7] have no tasks (the seed leaves every tenth task unassigned), users[1] many.
  { name: 'assigneeId (no tasks)', filter: (w) => ({ assigneeId: w.users[7] }) },
  { name: 'assigneeId (many tasks)', filter: (w) => ({ assigneeId: w.users[1] }) },
  // A person whose tasks are all among the newest: the totals choose the walk, which stops at its bound (a few times
  // the steps they expect) and leaves the page to the top-N, instead of reading the older tasks up to theirs.
  { name: 'assigneeId (tasks all among the newest)', filter: () => ({ assigneeId: NEWCOMER }), budget: 1500 },
  { name: 'my open tasks (assignee + category)', filter: (w) => ({ assigneeId: w.users[0], category: 'progress' }) },
  { name: 'my open tasks, a member with tasks', filter: (w) => ({ assigneeId: w.users[1], category: 'progress' }) },
  { name: 'q', filter: () => ({ q: 'zeppelin' }) },
  { name: 'q matching nothing', filter: () => ({ q: 'nothingmatchesthis' }) },
  // updatedSince alone over the workspace in creation order is prepared too: its page is a top-N of the match set,
  // an index-only scan of its covering index for a minute or a year, or a time nothing changed since. (At 40 000
  // tasks the plan for a year reads the table, which is right when every task matches: `scan`.)
  { name: 'updatedSince', filter: () => ({ updatedSince: NOW - 3_600_000 }) },
  { name: 'updatedSince, a minute', filter: () => ({ updatedSince: NOW - 60_000 }) },
  { name: 'updatedSince, a year', filter: () => ({ updatedSince: NOW - 365 * 86_400_000 }), scan: true },
  { name: 'updatedSince, matching none', filter: () => ({ updatedSince: NOW + 3_600_000 }) },
  // A label alone is prepared: its one plan holds a walk of the ids and a top-N of the matches, and runs the one the
  // counters' totals choose (a label on an eighth of the tasks walks, one on a hundredth or none sorts its matches).
  { name: 'a common label', filter: () => ({ labels: ['backend'] }) },
  { name: 'labels', filter: () => ({ labels: ['backend', 'ux'] }) },
  { name: 'a label matching none', filter: () => ({ labels: ['nothing'] }) },
  { name: 'a common label, next page', filter: () => ({ labels: ['backend'] }), after: () => 'task_000001000' },
  // A due date alone, the same way: the walk (a row of the table a step) where many are due, else a top-N of the
  // matches, read from tasks_due alone.
  { name: 'dueBefore', filter: () => ({ dueBefore: '2025-01-20' }) },
  // Half the tasks are dated: the page walks tasks_active, which holds the due date, and reads no task it passes.
  { name: 'dueBefore, every dated task', filter: () => ({ dueBefore: '2030-01-20' }), indexOnly: true },
  { name: 'dueBefore, matching none', filter: () => ({ dueBefore: '2000-01-20' }) },
  { name: 'dueBefore, next page', filter: () => ({ dueBefore: '2030-01-20' }), after: () => 'task_000001000', indexOnly: true },
  // Planned for their values at each request (not prepared): the plan for one value is wrong for another.
  { name: 'reporterId', filter: (w) => ({ reporterId: w.users[4] }) },
  { name: 'labels in a project', filter: (w) => ({ projectId: w.projects[3], labels: ['backend'] }) },
  { name: 'dueBefore in a project', filter: (w) => ({ projectId: w.projects[3], dueBefore: '2025-01-20' }) },
  // updatedSince beside another condition, or in a sort-key order: the generic plan reads what matches the other
  // (the project, column, category, person; a type or priority through the table), or walks that order's index.
  { name: 'updatedSince + a person, matching none', filter: (w) => ({ assigneeId: w.users[1], updatedSince: NOW + 3_600_000 }) },
  { name: 'updatedSince + priority', filter: () => ({ priorities: ['high'], updatedSince: NOW - 3_600_000 }) },
  { name: 'projectId + updatedSince, matching none', filter: (w) => ({ projectId: w.projects[3], updatedSince: NOW + 3_600_000 }) },
  { name: 'orderBy=priority + updatedSince, matching none', filter: () => ({ orderBy: 'priority', updatedSince: NOW + 3_600_000 }) },
  { name: 'updatedSince, archived tasks too', filter: () => ({ archived: 'all', updatedSince: NOW - 3_600_000 }) },
];

const worlds: World[] = [];
/** Buffers a page of 100 may read in any plan: about a dozen a row. */
const PAGE_BUDGET = 1200;

beforeAll(async () => {
  if (!onPg) return;
  for (const n of SIZES) worlds.push(await seed(n));
}, 240_000);
afterAll(async () => {
  for (const w of worlds) {
    await w.db.destroy();
    await dropTestDatabase(w.url);
  }
});

const filterOf = (w: World, s: Shape): TaskFilter => ({
  workspaceId: w.ws, visibleProjectIds: null, userId: w.users[0]!, archived: 'false', orderBy: 'created', ...s.filter(w),
});

describe.skipIf(!onPg)('GET /tasks plans by filter shape, at 4 000 and 40 000 tasks', () => {
  it('the shapes planned per request are exactly those whose selectivity is in the value', () => {
    // (A prepared shape whose generic plan reads more than planning for the values would fails the test below.)
    const w = { ws: 'w', users: Array(USERS).fill('u'), projects: ['p', 'p', 'p', 'p'], statuses: Array(10).fill('s'), boards: Array(6).fill('b') } as unknown as World;
    const perRequest = SHAPES.filter((s) => !preparedShape(filterOf(w, s))).map((s) => s.name);
    expect(perRequest).toEqual([
      'reporterId', 'labels in a project', 'dueBefore in a project',
      'updatedSince + a person, matching none', 'updatedSince + priority', 'projectId + updatedSince, matching none',
      'orderBy=priority + updatedSince, matching none', 'updatedSince, archived tasks too',
    ]);
  });

  it.each(SHAPES.map((s) => [s.name, s] as const))('%s: no sequential scan of tasks, no parallel workers; a prepared shape\'s generic plan reads no more than its custom plan', async (_name, shape) => {
    const read: number[] = [];
    for (const w of worlds) {
      const f = filterOf(w, shape);
      const p = await plans(w, f, shape.after?.(w));
      const prepared = preparedShape(f);
      // A shape planned per request never runs the generic plan.
      for (const mode of prepared ? (['custom', 'generic'] as const) : (['custom'] as const)) {
        const nodes = p[mode].nodes;
        // At 4 000 tasks reading the table can be the cheapest plan; at 40 000 it never is.
        if (w === worlds.at(-1) && !shape.scan) expect(nodes.filter((x) => x['Node Type'] === 'Seq Scan' && x['Relation Name'] === 'tasks'), mode).toEqual([]);
        expect(nodes.filter((x) => /Gather/.test(x['Node Type'])), mode).toEqual([]);
        // Each row meets its column by the column's key (or a hash of the columns), never by a nested loop that
        // compares it with every column of the workspace: a page of 100 at 80 columns was 4 000 comparisons. (A
        // category's walk may compare each row with the category's columns: the filter needs those comparisons.)
        const columnsScanned = nodes.filter((x) => x['Node Type'] === 'Nested Loop' && /status_id = statuses\.id|statuses\.id = \w+\.status_id/.test(x['Join Filter'] ?? ''));
        if (f.category === undefined) expect(columnsScanned.map((x) => x['Join Filter']), mode).toEqual([]);
        if (shape.indexOnly) {
          // The one read of the table allowed: the page's rows, by their ids (`id = ANY (...)`).
          const byIds = (x: PlanNode) => x['Index Name'] === 'tasks_pkey' && /^\(id = ANY /.test(x['Index Cond'] ?? '');
          const heap = nodes.filter((x) => x['Relation Name'] === 'tasks' && x['Node Type'] !== 'Index Only Scan' && !byIds(x));
          expect(heap.map((x) => `${x['Node Type']} ${x['Index Name'] ?? ''} ${x['Index Cond'] ?? ''}`), mode).toEqual([]);
        }
      }
      if (process.env.PRINT_PLANS) console.log(`${shape.name} at ${SIZES[worlds.indexOf(w)]}: custom ${p.custom.buffers}, generic ${p.generic.buffers} buffers${prepared ? '' : ' (planned per request)'}`);
      // The generic plan is what a prepared shape runs: it may not cost more than planning for the values would, or
      // more than a page's worth (a dozen buffers a row of the 100). At 4 000 tasks the plan for a value can sort a
      // project's 400 tasks where the generic plan walks them in order: 430 buffers against 65, both under 1 ms;
      // at 1 000 000 the same sort would be of 100 000 tasks.
      if (prepared) {
        expect(p.generic.buffers, `generic ${p.generic.buffers} vs custom ${p.custom.buffers} buffers at ${SIZES[worlds.indexOf(w)]}`)
          .toBeLessThanOrEqual(Math.max(p.custom.buffers * 1.5 + 50, PAGE_BUDGET));
      }
      read.push(prepared ? p.generic.buffers : p.custom.buffers);
      if (shape.budget !== undefined) expect(read.at(-1), `buffers at ${SIZES[worlds.indexOf(w)]}`).toBeLessThanOrEqual(shape.budget);
    }
    // A walk in index order stops at the page: ten times the tasks, about the same reads.
    if (shape.early) expect(read[1], `buffers at ${SIZES.join(' and ')}: ${read.join(', ')}`).toBeLessThanOrEqual(read[0]! * 2 + 100);
  });
});

/** How PostgreSQL runs the service's statement of a shape left to itself: the plans it made in `runs` executions on one connection. */
async function autoPlans(w: World, f: TaskFilter, after: string | undefined, runs: number): Promise<{ generic: number; custom: number }> {
  const { sql, bindings } = served(w, f, after);
  const conn = await w.db.client.acquireConnection();
  try {
    const run = (text: string) => conn.query(text) as Promise<{ rows: Array<Record<string, any>> }>;
    await run('deallocate all');
    await run(`prepare shape as ${sql}`);
    for (let i = 0; i < runs; i++) await run(`execute shape(${bindings.map(literal).join(', ')})`);
    const { rows } = await run("select generic_plans, custom_plans from pg_prepared_statements where name = 'shape'");
    await run('deallocate shape');
    return { generic: Number(rows[0]!.generic_plans), custom: Number(rows[0]!.custom_plans) };
  } finally {
    w.db.client.releaseConnection(conn);
  }
}

describe.skipIf(!onPg)('GET /tasks prepared shapes, left to PostgreSQL', () => {
  // PostgreSQL plans a prepared statement for its values five times, then runs its generic plan only if that is
  // estimated no costlier. A plan that knows the values is estimated cheaper (here even where it is the same plan), so
  // with the values in sight most shapes were planned again at every request; `listSql` keeps them out of its sight.
  it.each(SHAPES.map((s) => [s.name, s] as const))('%s: a prepared shape settles on its generic plan', async (_name, shape) => {
    for (const w of worlds) {
      const f = filterOf(w, shape);
      if (!preparedShape(f)) continue;
      const p = await autoPlans(w, f, shape.after?.(w), 10);
      expect(p, `at ${SIZES[worlds.indexOf(w)]} tasks`).toEqual({ generic: 5, custom: 5 });
    }
  });
});
