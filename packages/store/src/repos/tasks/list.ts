import type { Knex } from 'knex';
import type { CutPageResult, PageRequest, TaskFilter, TaskSummaryRecord } from '@tt/domain';
import { bind, marker, markerIndex, type Slot, slotsOf, statementFamily } from '../../compiled.js';
import { parsePosition, position } from '../../position.js';
import { num, positionsOf } from '../../util.js';
import { readSummary, SUMMARY_SELECT } from './columns.js';
import { extraFilters, hasExtraFilters, isKeyedOrder, keyedNext, keyedOrder, keyedOuterOrder } from './query.js';

const TASK_KEY = /^[A-Za-z][A-Za-z0-9]{0,9}-\d{1,9}$/;

/**
 * Every GET /tasks filter as SQL on the indexed columns of tasks, without joins: the count of a large
 * workspace then stays an index-only scan (tasks_active covers board_id and status_id).
 */
function filtered(db: Knex, f: TaskFilter): Knex.QueryBuilder {
  const hiddenBoards = db('boards as hb')
    .select('hb.id')
    .where('hb.workspace_id', f.workspaceId)
    .whereNotNull('hb.member_ids')
    .whereRaw('not (? = any(hb.member_ids))', [f.userId]);
  const q = db('tasks').where('tasks.workspace_id', f.workspaceId).whereNotIn('tasks.board_id', hiddenBoards);
  if (f.visibleProjectIds) q.whereIn('tasks.project_id', f.visibleProjectIds);
  if (f.projectId) q.where('tasks.project_id', f.projectId);
  if (f.boardId) q.where('tasks.board_id', f.boardId);
  if (f.statusId) q.where('tasks.status_id', f.statusId);
  if (f.category) {
    q.whereIn(
      'tasks.status_id',
      db('statuses as cs').join('boards as cb', 'cb.id', 'cs.board_id').select('cs.id').where({ 'cb.workspace_id': f.workspaceId, 'cs.category': f.category }),
    );
  }
  if (f.assigneeId === 'none') q.whereRaw("tasks.assignee_ids = '{}'");
  else if (f.assigneeId) q.whereRaw('tasks.assignee_ids @> array[?]::text[]', [f.assigneeId]);
  if (f.reporterId) q.where('tasks.reporter_id', f.reporterId);
  if (f.types?.length) q.whereIn('tasks.type', f.types);
  if (f.priorities?.length) q.whereIn('tasks.priority', f.priorities);
  if (f.labels?.length) q.whereRaw('tasks.labels @> ?::text[]', [f.labels]);
  if (f.parentId === 'none') q.whereNull('tasks.parent_id');
  else if (f.parentId && TASK_KEY.test(f.parentId)) {
    q.whereIn('tasks.parent_id', db('tasks as p').select('p.id').where({ 'p.workspace_id': f.workspaceId, 'p.key': f.parentId.toUpperCase() }));
  } else if (f.parentId) q.where('tasks.parent_id', f.parentId);
  if (f.dueBefore) q.whereRaw('tasks.due_date <= ?', [f.dueBefore]);
  if (f.updatedSince !== undefined) q.where('tasks.updated_at', '>', f.updatedSince);
  if (f.q) {
    const q2 = f.q;
    q.where((w) =>
      w
        .whereRaw(
          "tasks.search @@ (websearch_to_tsquery('simple', ?) || websearch_to_tsquery('english', ?) || websearch_to_tsquery('russian', ?))",
          [q2, q2, q2],
        )
        // upper() in SQL rather than in JS: the statement's text and its bound values stay apart (see listSql).
        .orWhereRaw('tasks.key = upper(?)', [q2]),
    );
  }
  if (f.archived === 'false') q.whereNull('tasks.archived_at');
  else if (f.archived === 'true') q.whereNotNull('tasks.archived_at');
  extraFilters(db, q, f);
  return q;
}

type Counter = 'task_counts' | 'task_label_counts' | 'task_assignee_counts';

/**
 * The counter table that keeps every field the filter names, if one does: task_counts (layout, type, priority,
 * archived); with labels, task_label_counts (layout, labels, archived); with a person, task_assignee_counts (layout,
 * assignee, archived). Labels and a person together, or either with a type or a priority, are counted on the rows.
 */
function counterOf(f: TaskFilter): Counter | undefined {
  if (
    hasExtraFilters(f) || f.assigneeId === 'none' || f.reporterId !== undefined || f.parentId !== undefined ||
    f.dueBefore !== undefined || f.updatedSince !== undefined || f.q !== undefined
  ) return undefined;
  const labels = Boolean(f.labels?.length);
  const person = f.assigneeId !== undefined;
  if (!labels && !person) return 'task_counts';
  if ((labels && person) || f.types?.length || f.priorities?.length) return undefined;
  return labels ? 'task_label_counts' : 'task_assignee_counts';
}

/** True when a counter table gives the filter's total (`counterOf`). */
export const countedByCounters = (f: TaskFilter): boolean => counterOf(f) !== undefined;

/**
 * The exact total from the counters kept with every write: a sum over the workspace's columns (a few hundred
 * rows; a person's, over the columns they have tasks in), whatever the number of tasks. Closed boards the user is not
 * on are left out, as in the rows.
 */
function counterTotal(db: Knex, f: TaskFilter, counter: Counter): Knex.QueryBuilder {
  const q = db(`${counter} as tc`)
    .join('statuses as s', 's.id', 'tc.status_id')
    .join('boards as b', 'b.id', 's.board_id')
    .where('b.workspace_id', f.workspaceId)
    .where((w) => w.whereNull('b.member_ids').orWhereRaw('? = any(b.member_ids)', [f.userId]))
    .select(db.raw('coalesce(sum(tc.n), 0)::bigint as total'));
  if (f.visibleProjectIds) q.whereIn('b.project_id', f.visibleProjectIds);
  if (f.projectId) q.where('b.project_id', f.projectId);
  if (f.boardId) q.where('b.id', f.boardId);
  if (f.statusId) q.where('s.id', f.statusId);
  if (f.category) q.where('s.category', f.category);
  if (f.types?.length) q.whereIn('tc.type', f.types);
  if (f.priorities?.length) q.whereIn('tc.priority', f.priorities);
  if (counter === 'task_label_counts') q.whereRaw('tc.labels @> ?::text[]', [f.labels!]);
  if (counter === 'task_assignee_counts') q.where('tc.assignee_id', f.assigneeId!);
  if (f.archived !== 'all') q.where('tc.archived', f.archived === 'true');
  return q;
}

/**
 * A label alone, a due date alone, or a person alone or with a category, over the active tasks in creation order: the
 * shapes whose page `taskListQueries` takes one of two ways inside one statement, so its one (generic) plan is right
 * for a value every task matches and one none does.
 * - A walk of tasks_active in id order meets a page of matches after about active × page ÷ total tasks.
 * - A top-N of the matches, read from their own index (the labels' GIN index; tasks_due, which covers the id), costs
 *   a read and a sort place for each match.
 * So the walk is taken when total × total × `GATES[gate].match` ≥ active × page × `GATES[gate].step`: a label's walk
 * reads tasks_active alone (it holds the labels) and a match through the GIN index a row of the table; a due date's
 * walk reads tasks_active alone too (it holds the due date) and a match is an entry of tasks_due; a person's walk reads a row for each step (the
 * category, if any, from tasks_active) and a match is a row read through the GIN index, then sorted. The total is
 * exact: a label's and a person's from the counters, a due date's an index-only count on tasks_due. (At 1 000 000
 * tasks the busiest person's page was a top-N of 40 000 matches, materialized and sorted: 0.53 of the floor, which
 * walks; gated, 0.90 to 1.0.) For the active tasks the statement takes the tasks numbered in the
 * workspace's projects, a sum over a few rows. That bounds them from above (archived and deleted tasks keep their
 * numbers), so where many are archived the page leans to the top-N, the way whose cost is bounded by its matches.
 * (The active tasks summed from the counters cost PostgreSQL about 0.7 ms more a page at 20 000 tasks.) The walk's
 * length assumes matches spread over the ids, as the benchmark's labels, due dates and people's tasks are. Where they
 * are all among the newest tasks (a label or a person new to a large workspace), a walk would read the older tasks
 * before it met them: so it stops after WALK_SLACK times the steps expected, and the page is then the top-N's. Recent
 * changes are mostly so (gated, a walk read 98 000 tasks at 100 000 for a day's changes), so `updatedSince` walks a
 * fixed length instead (`walksSince`).
 */
type Gate = 'labels' | 'dueBefore' | 'assignee';
function gateOf(f: TaskFilter): Gate | undefined {
  if (f.archived !== 'false' || f.orderBy !== 'created') return undefined;
  if (f.assigneeId !== undefined && f.assigneeId !== 'none') {
    return !otherCondition({ ...f, assigneeId: undefined, category: undefined }) && onlyLesser(f) ? 'assignee' : undefined;
  }
  if (otherCondition(f)) return undefined;
  if (f.labels?.length) return countedByCounters(f) ? 'labels' : undefined;
  return f.dueBefore && onlyLesser(f, 'dueBefore') ? 'dueBefore' : undefined;
}

/**
 * None of the conditions `otherCondition` leaves out (labels, a reporter, a due date, `updatedSince`) but `keep`:
 * beside `!otherCondition(f)`, the filter is `keep` alone.
 */
function onlyLesser(f: TaskFilter, keep?: 'dueBefore' | 'updatedSince'): boolean {
  return !f.labels?.length && f.reporterId === undefined && (keep === 'dueBefore' || !f.dueBefore) && (keep === 'updatedSince' || f.updatedSince === undefined);
}

/**
 * Any condition but labels, a reporter, a due date and `updatedSince`: the layout (project, board, column, category),
 * the key's projects, a person, a text, a type, a priority, a parent or another filter.
 */
function otherCondition(f: TaskFilter): boolean {
  return (
    f.projectId !== undefined || f.boardId !== undefined || f.statusId !== undefined || f.category !== undefined ||
    Boolean(f.visibleProjectIds) || f.assigneeId !== undefined || Boolean(f.q) || Boolean(f.types?.length) ||
    Boolean(f.priorities?.length) || f.parentId !== undefined || hasExtraFilters(f)
  );
}
/**
 * `updatedSince` alone over the active tasks in creation order: its page first walks at most SINCE_WALK active tasks
 * in id order (an index-only read of tasks_active), and takes the top-N of the match set only when those hold less
 * than a page. Recent changes may lie anywhere in id order: spread over the ids (a sync of a busy workspace, where
 * the walk meets a page after a few hundred steps and the top-N would read and sort thousands of matches), or among
 * the newest tasks only (the walk finds nothing, and costs its steps: on a slow machine the second thousand cost
 * PostgreSQL 0.4 ms). Between the two, most often, they thin out towards the older tasks: on the matrix's fresh seed
 * a day's 4 800 changes of 19 200 tasks are 7 % of the oldest thousand and 95 % of the newest, so a walk of 1 000 met
 * 68 of a page's 101 and the top-N ran after it (5.6-5.9 ms a page, the floor's walk 3.5); a walk of 2 000 meets the
 * page (3.2-3.3 ms), where 230 or 945 changes among the newest cost 0.4 ms more than with 1 000 (2.5 and 3.0 ms).
 */
function walksSince(f: TaskFilter): boolean {
  return (
    f.updatedSince !== undefined && f.orderBy === 'created' && f.archived === 'false' && !otherCondition(f) && onlyLesser(f, 'updatedSince')
  );
}
const SINCE_WALK = 2000;

/**
 * The relative cost of a match read for the top-N and of a step of the walk, measured at 20 000 tasks; a person's
 * (a row of the table either way) and a due date's (an index entry either way, since tasks_active holds the due date)
 * set equal, and checked by the matrix at 1 000 000.
 */
const GATES: Record<Gate, { match: number; step: number }> = {
  labels: { match: 10, step: 1 }, dueBefore: { match: 1, step: 1 }, assignee: { match: 1, step: 1 },
};

/** How many times its expected length a gated walk may step before the page is taken from the top-N instead. */
const WALK_SLACK = 4;

/** A gated filter without its gated condition, and that condition as a test of a row (SQL and bindings). */
function gateTest(f: TaskFilter, gate: Gate): { rest: TaskFilter; hit: [string, unknown[]] } {
  if (gate === 'labels') return { rest: { ...f, labels: undefined }, hit: ['tasks.labels @> ?::text[]', [f.labels]] };
  if (gate === 'dueBefore') return { rest: { ...f, dueBefore: undefined }, hit: ['tasks.due_date <= ?', [f.dueBefore]] };
  return { rest: { ...f, assigneeId: undefined }, hit: ['tasks.assignee_ids @> array[?]::text[]', [f.assigneeId]] };
}

/**
 * For a walk that may fall short of a page (the CTE `name`, holding at most `take` matches in id order): the condition
 * that it filled the page (`full`, bound with `take`), and the top-N of the match set from the cursor on, read only
 * when it did not (`top`). The page is then `name`'s ids where `full`, and `top`'s otherwise.
 */
function unlessWalked(db: Knex, name: string, take: number, after: string | undefined): { full: string; top: Knex.QueryBuilder } {
  const full = `(select count(*) from ${name}) = ?`;
  const top = db('matches').select('id').whereRaw(`not ${full}`, [take]);
  if (after !== undefined) top.where('id', '>', after);
  top.orderBy('id').limit(take);
  return { full, top };
}

/**
 * The SQL behind GET /tasks, built but not run: `rows` (a page, limit + 1 to see if more follow; in no set order
 * where taken by their ids, which `page` orders), `count` (the exact total, from the counters when the filter allows,
 * else counted on the filter's index) and `page`, both in one statement, so a page is one round trip. Exported so the
 * plan of every filter can be checked.
 */
export function taskListQueries(
  db: Knex,
  f: TaskFilter,
  page: PageRequest,
): { page: Knex.QueryBuilder; rows: Knex.QueryBuilder; count: Knex.QueryBuilder; offset: number; counters: boolean } {
  const base = filtered(db, f);
  let offset = 0;
  const order = f.orderBy === 'position' ? ['rank', 'id'] : ['id'];
  const keyed = isKeyedOrder(f.orderBy) ? f.orderBy : null;
  const counter = counterOf(f);
  const counters = counter !== undefined;
  // In creation order, three kinds of filter take the page's ids first and then its rows by primary key:
  // - a text search or an updatedSince counts its whole match set for the total anyway (no counters keep either).
  //   The set is read once, into `matches` (for updatedSince an index-only scan of its covering index): the total
  //   counts it and the page's ids are a top-N of it, sorted in memory, so the planner cannot walk the id index
  //   hoping to meet matches early (which reads every task when a search matches few, and nearly every task for the
  //   recent changes a sync asks for when they are the newest). The plan is then the same for any value (see
  //   `preparedShape`). updatedSince alone first walks a bounded length of the ids (`walksSince`). A dueBefore is
  //   not read this way: due dates are spread over the ids, so where many tasks match (21 000 of 1 000 000), walking
  //   the ids to the page's 101 costs 2 ms and materializing and sorting the matches 10; its count is an index-only
  //   scan of the covering tasks_due, and the walk or the top-N is the planner's choice for the value.
  // - a person (assigneeId): the same holds, and walking the id index for a page of someone's tasks read the whole
  //   workspace for a member with none (3.9 s at 1 000 000 tasks, where the match set is empty and costs 0.2 ms).
  //   Alone or with a category, a person is gated instead (`gateOf`): the walk is taken only where the total says it
  //   meets a page early.
  // - labels over the layout alone (active tasks, no project): the ids walk tasks_active in id order, which holds
  //   the labels, the board and the column, so the walk to a page of matches reads no task.
  const topN = Boolean(f.q) || f.updatedSince !== undefined || (f.assigneeId !== undefined && f.assigneeId !== 'none');
  const labelWalk = Boolean(f.labels?.length) && counters && f.archived === 'false' && f.projectId === undefined && !f.visibleProjectIds;
  const idsFirst = !keyed && f.orderBy !== 'position' && (topN || labelWalk);
  const gated = gateOf(f);
  const sinceWalk = walksSince(f);
  const matches = (topN || gated) && !keyed && f.orderBy !== 'position' ? base.clone().select('tasks.id') : undefined;
  let walk: Knex.QueryBuilder | undefined;
  // The condition that the updatedSince walk filled the page (`unlessWalked`): the count reads it too.
  let walkFull = '';
  let rows: Knex.QueryBuilder;
  if (sinceWalk) {
    // The first SINCE_WALK active tasks from the cursor on, in id order (tasks_active alone: it holds updated_at), and
    // the matches among them (`walk`). When those make a page, it is the page; else the top-N of the match set, which
    // is read only then. The total is counted on its covering index, beside either.
    const steps = filtered(db, { ...f, updatedSince: undefined }).select('tasks.id', 'tasks.updated_at').orderBy('tasks.id').limit(SINCE_WALK);
    if (page.after !== undefined) steps.where('tasks.id', '>', page.after);
    walk = db.from(steps.as('w')).select('w.id').where('w.updated_at', '>', f.updatedSince!).orderBy('w.id').limit(page.limit + 1);
    const { full, top } = unlessWalked(db, 'walk', page.limit + 1, page.after);
    walkFull = full;
    const walked = db('walk').select('id').whereRaw(full, [page.limit + 1]);
    rows = db('tasks').whereRaw('tasks.id = any(array(? union all ?))', [walked as unknown as Knex.Value, top as unknown as Knex.Value]);
  } else if (gated) {
    // Both ways to the page in one statement, so its one plan holds both. The walk steps over the active tasks in id
    // order (tasks_active), testing each (`hit`), at most `bound` of them: WALK_SLACK times the steps the totals (`c`,
    // beside the rows) expect before a page of matches, and none where they expect more steps than there are matches.
    // Its matches make the page when they fill it (`w`); else the page is the top-N of the match set, read from its
    // own index (`matches`, never read otherwise). A walk that meets fewer matches than expected (they may all be among
    // the newest tasks) so costs at most its bound before the top-N.
    const { match, step } = GATES[gated];
    const take = page.limit + 1;
    const bound = db.raw(
      `case when c.total * c.total * ${match} >= c.active * ? * ${step} then ceil(${WALK_SLACK} * c.active * ?::numeric / greatest(c.total, 1))::bigint else 0 end`,
      [take, take],
    );
    const { rest, hit } = gateTest(f, gated);
    const steps = filtered(db, rest).select('tasks.id', db.raw(`${hit[0]} as hit`, hit[1] as Knex.RawBinding[])).orderBy('tasks.id');
    if (page.after !== undefined) steps.where('tasks.id', '>', page.after);
    const stepped = steps.toSQL();
    const hits = db.raw(`select s.id from (${stepped.sql} limit ?) as s where s.hit order by s.id limit ?`, [...stepped.bindings, bound, take]);
    const { full, top } = unlessWalked(db, 'w', take, page.after);
    rows = db('tasks').whereRaw(`tasks.id = any(array(with w as materialized (?) select id from w where ${full} union all ?))`, [
      hits as unknown as Knex.Value, take, top as unknown as Knex.Value,
    ]);
  } else if (idsFirst) {
    const id = matches ? 'id' : 'tasks.id';
    const ids = (matches ? db('matches') : base.clone()).select(id).orderBy(id).limit(page.limit + 1);
    if (page.after !== undefined) ids.where(id, '>', page.after);
    rows = db('tasks').whereRaw('tasks.id = any(array(?))', [ids as unknown as Knex.Value]);
  } else {
    rows = base.clone();
    if (keyed) keyedOrder(db, rows, keyed, page.after);
    else if (f.orderBy === 'position') {
      if (page.after !== undefined) {
        const [rank, id, index] = parsePosition(page.after, 3, ([r, , i]) => Number.isFinite(Number(r)) && Number.isInteger(Number(i)));
        offset = Number(index);
        rows.whereRaw('(tasks.rank, tasks.id) > (?, ?)', [Number(rank), id]);
      }
    } else if (page.after !== undefined) rows.where('tasks.id', '>', page.after);
    // Only these rows are ordered and cut here. Rows taken by their ids (the branches above) are the page already, at
    // most limit + 1 of them, and the page statement orders them. Ordering them here too asked the planner for rows
    // in id order, and its generic plan, which expects 10 ids, kept that order by joining each row to every column of
    // the workspace (a nested loop over the whole statuses table: 5 000 comparisons for a page of 101 at 110 columns,
    // half of the rows' cost); unordered, it joins each row's column by its primary key.
    if (!keyed) rows.orderBy(order.map((c) => ({ column: `tasks.${c}` })));
    rows.limit(page.limit + 1);
  }
  rows.join('statuses', 'statuses.id', 'tasks.status_id').select(SUMMARY_SELECT);
  // A gated page counts on the index (`matches` is read only by its top-N).
  // A walk for updatedSince counts on the index when it made the page, else on the match set its top-N reads anyway:
  // PostgreSQL runs only the subquery of the branch taken.
  const count = counters
    ? counterTotal(db, f, counter)
    : sinceWalk
      ? db.select(db.raw(`case when ${walkFull} then (?) else (select count(*) from matches) end as total`, [
          page.limit + 1, base.clone().select(db.raw('count(*)')) as unknown as Knex.Value,
        ]))
      : (matches && !gated ? db('matches') : base.clone()).select(db.raw('count(*) as total'));
  // How long the walk is: the tasks numbered in the workspace's projects, the bound `gateOf` takes for the active ones.
  if (gated) {
    const numbered = db('projects as p').where('p.workspace_id', f.workspaceId).select(db.raw('coalesce(sum(p.task_seq), 0)::bigint'));
    count.select(db.raw('(?) as active', [numbered as unknown as Knex.Value]));
  }
  // The total and the rows side by side: one row per task, or a single row of nulls beside the total when none match.
  const combined = db
    .select('c.total', 'r.*')
    .from(count.as('c'))
    .joinRaw('left join lateral ? as r on true', [rows as unknown as Knex.Value])
    .orderBy(keyed ? keyedOuterOrder(keyed) : order.map((c) => ({ column: `r.${c}` })));
  // The match set is named once, at the top of each statement that reads it (rows and count run alone in the plan test).
  const withMatches = (q: Knex.QueryBuilder) => {
    const named = matches ? q.clone().withMaterialized('matches', matches) : q;
    return walk ? named.withMaterialized('walk', walk) : named;
  };
  // A gated page reads the totals beside it: alone, its rows are still read with them.
  const alone = gated ? db.select('r.*').from(count.clone().as('c')).joinRaw('cross join lateral ? as r', [rows as unknown as Knex.Value]) : rows;
  return { page: withMatches(combined), rows: withMatches(alone), count: withMatches(count), offset, counters };
}

/**
 * Whether a filter's page statement is prepared. Its text depends only on the filter's shape (which filters, list
 * lengths, order, cursor), so a prepared one is parsed and planned once per connection and shape: it reads its
 * values through subqueries (`veiled`), so that PostgreSQL, after its first five executions, runs the generic plan.
 * That is right where the conditions are on the layout (project, board, column, category), type, priority or
 * archived: about as many tasks match any value, and an ordered walk of an index stops at the page. It holds too for
 * a person (`assigneeId`) and a search text (`q`), whose page is a top-N of the match set read once
 * (`taskListQueries`): the match set is read from its own index whatever the value, so there is no walk to go wrong,
 * and the generic plan reads what the plan for the value reads (`list-plans.int.test.ts`, for a member with no tasks
 * and one with many). The same holds for `updatedSince` alone over the workspace's active tasks in creation order
 * (`walksSince`), whose walk is bounded and whose match set is an index-only scan of its covering (partial) index: a
 * minute or a year, or a time nothing changed since. With archived tasks it is
 * planned per request: another index serves them, and no plan test covers its generic plan. A label alone is prepared
 * too, and so is a due date alone: the statement holds both ways to its page and takes one by the total (`gateOf`).
 * Planning such a statement costs PostgreSQL about 0.4 ms, more than running it. It does not hold where a walk
 * remains and the selectivity is in the value: a label or a due date beside another condition (a rare label walks
 * the project waiting for matches), a reporter, a parent, and `updatedSince` beside any other condition (a project,
 * column, category, person, type...: the generic plan reads all that matches the other one, where a time that matches
 * none costs the plan for it two buffers) or in a sort-key order (which walks that order's index waiting for
 * matches). Those shapes are planned for their values at every request.
 */
export function preparedShape(f: TaskFilter): boolean {
  if (gateOf(f)) return true;
  return (
    !f.labels?.length && !f.dueBefore && !f.dueAfter && f.reporterId === undefined && (f.parentId === undefined || f.parentId === 'none') &&
    // Beside any other condition, the generic plan may read all of its matches (through its own index, or the table)
    // for a time that matches none.
    (f.updatedSince === undefined || walksSince(f))
  );
}

/** Distinct list texts prepared per connection at most (shapes past it run unnamed). */
const MAX_LIST_SHAPES = 100;
const listStatement = statementFamily(MAX_LIST_SHAPES);

/** A filter's value fields: the strings and numbers bound as they are, and the lists bound element by element or whole. */
const VALUE_FIELDS = [
  'workspaceId', 'userId', 'projectId', 'boardId', 'statusId', 'category', 'reporterId', 'dueBefore', 'updatedSince', 'q',
  'dueAfter', 'createdSince', 'createdBefore',
] as const;
const LIST_FIELDS = ['visibleProjectIds', 'types', 'priorities', 'labels', 'statusIds', 'categories'] as const;
/** Stands for the page's row count (limit + 1) while a shape is built: a number, as Knex binds limits. */
const TAKE = 2_000_000_011;

/**
 * The shape of a filter and page: which fields are given (lists by length), the special values that change the SQL
 * (`assigneeId=none`, `parentId=none`), the order, archived, and whether a cursor follows. Undefined when the text
 * itself depends on a value: a parent given by key or id, an empty string, or a cursor of a column or keyed order
 * (parsed into its parts): those pages are built at each request.
 */
function shapeKey(f: TaskFilter, page: PageRequest): string | undefined {
  if (page.after !== undefined && f.orderBy !== 'created') return undefined;
  if (f.parentId !== undefined && f.parentId !== 'none') return undefined;
  let key = `${f.orderBy}|${f.archived}|${page.after === undefined ? '' : 'a'}|${f.assigneeId === 'none' ? 'n' : f.assigneeId === undefined ? '' : '+'}|${f.parentId ?? ''}|`;
  for (const k of VALUE_FIELDS) {
    const v = f[k];
    if (v === '') return undefined;
    key += v === undefined ? '-' : '+';
  }
  for (const k of LIST_FIELDS) key += `${f[k] === undefined || f[k] === null ? '-' : f[k]!.length},`;
  return key;
}

/** Every value of a filter and page, in the order its markers are numbered: the value fields, the lists' elements, a person, the cursor. */
function eachValue(f: TaskFilter, page: PageRequest, visit: (value: unknown, field: string, at?: number) => void): void {
  for (const k of VALUE_FIELDS) if (f[k] !== undefined) visit(f[k], k);
  for (const k of LIST_FIELDS) f[k]?.forEach((v, i) => visit(v, k, i));
  if (f.assigneeId !== undefined && f.assigneeId !== 'none') visit(f.assigneeId, 'assigneeId');
  if (page.after !== undefined) visit(page.after, 'after');
}

/** The values a shape's statement is bound with, in marker order, the row count (limit + 1) last. */
function valuesOf(f: TaskFilter, page: PageRequest): unknown[] {
  const values: unknown[] = [];
  eachValue(f, page, (v) => values.push(v));
  values.push(page.limit + 1);
  return values;
}

/** The same filter and page with every value a marker (in `eachValue`'s order) and the row count `TAKE`, the last; each marker's SQL type. */
function marked(f: TaskFilter, page: PageRequest): { f: TaskFilter; page: PageRequest; count: number; types: string[] } {
  const m: Record<string, unknown> = { ...f };
  for (const k of LIST_FIELDS) if (f[k]) m[k] = [...f[k]!];
  let n = 0;
  let after: string | undefined;
  const types: string[] = [];
  eachValue(f, page, (_, field, at) => {
    const mark = marker(n++);
    types.push(VALUE_TYPES[field] ?? 'text');
    if (field === 'after') after = mark;
    else if (at === undefined) m[field] = mark;
    else (m[field] as unknown[])[at] = mark;
  });
  types.push('int');
  return { f: m as unknown as TaskFilter, page: { limit: TAKE - 1, after }, count: n + 1, types };
}

/** The SQL type of a value field that is not text. */
const VALUE_TYPES: Record<string, string> = { updatedSince: 'bigint', createdSince: 'bigint', createdBefore: 'bigint', dueBefore: 'date', dueAfter: 'date' };

/**
 * A prepared shape's text with each value read through a scalar subquery, `(select $n::type)`: PostgreSQL plans
 * around such a value without looking at it, so the plans it makes for the first executions (with the values) are its
 * generic plan, and it settles on that plan, as `preparedShape` intends, instead of planning every request again.
 * Left to itself it did plan them all again at 20 000 tasks for `updatedSince` and `dueBefore` (about 1 ms each),
 * and at 40 000 for most shapes: a plan that knows the values is estimated cheaper than one that does not, even where
 * both are the same. Constants (bound, not markers) stay as they are. Undefined when the placeholders cannot be
 * matched to the bindings.
 */
function veiled(sql: string, bindings: readonly unknown[], types: readonly string[]): string | undefined {
  const parts = sql.split('?');
  if (parts.length - 1 !== bindings.length) return undefined;
  let out = parts[0]!;
  bindings.forEach((b, i) => {
    const at = b === TAKE ? types.length - 1 : markerIndex(b);
    const param = Array.isArray(b) ? '(select ?::text[])' : at !== undefined ? `(select ?::${types[at]})` : '?';
    out += param + parts[i + 1]!;
  });
  return out;
}

/** Shapes whose SQL is kept, at most (past it a shape is built at each request). */
const MAX_SHAPE_SQL = 500;
const shapeSql = new Map<string, { sql: string; slots: Slot[] } | null>();

/**
 * The page statement of a filter: built by Knex once per shape (`shapeKey`) with markers in place of the values, and
 * from then on only bound. Building the statement cost more CPU than PostgreSQL spends running a prepared one.
 */
export function listSql(db: Knex, f: TaskFilter, page: PageRequest): { sql: string; bindings: readonly unknown[]; offset: number; kept: boolean } {
  const key = shapeKey(f, page);
  let cached = key === undefined ? null : shapeSql.get(key);
  if (key !== undefined && cached === undefined) {
    const m = marked(f, page);
    const { sql, bindings } = taskListQueries(db, m.f, m.page).page.toSQL();
    const slots = slotsOf(bindings, m.count, new Map([[TAKE, m.count - 1]]));
    const text = preparedShape(f) ? veiled(sql, bindings, m.types) : sql;
    cached = slots && text ? { sql: text, slots } : null;
    if (shapeSql.size < MAX_SHAPE_SQL) shapeSql.set(key, cached);
  }
  if (cached) {
    return { sql: cached.sql, bindings: bind(cached.slots, valuesOf(f, page)), offset: 0, kept: true };
  }
  const q = taskListQueries(db, f, page);
  const { sql, bindings } = q.page.toSQL();
  return { sql, bindings, offset: q.offset, kept: false };
}

/**
 * Runs the page query of a filter: rows, the position after the last one, the exact total, and the position after
 * any first n rows (`after`), for a reader that shows fewer rows than it read.
 */
export async function listTasks(
  db: Knex, f: TaskFilter, page: PageRequest,
): Promise<CutPageResult<TaskSummaryRecord & { position?: number }>> {
  const { sql, bindings, offset } = listSql(db, f, page);
  const all = await listStatement(db, sql, bindings, preparedShape(f));
  const total = num(all[0]?.total);
  const rows = all.filter((r) => r.id !== null && r.id !== undefined);
  const more = rows.length > page.limit;
  const kept = more ? rows.slice(0, page.limit) : rows;
  const keyed = isKeyedOrder(f.orderBy) ? f.orderBy : undefined;
  // The position after the n-th row, kept[n - 1] (1 <= n <= kept.length).
  const { next, after } = positionsOf(kept.length, more, (n) => {
    const r = kept[n - 1]!;
    if (f.orderBy === 'position') return position(Number(r.rank), r.id, offset + n);
    return keyed ? keyedNext(keyed, r) : String(r.id);
  });
  if (f.orderBy === 'position') {
    // The position set on the record, not spread into a copy: a spread of 26 fields makes a slow object to read.
    return { rows: kept.map((r, i) => Object.assign(readSummary(r), { position: offset + i })), next, total, after };
  }
  return { rows: kept.map(readSummary), next, total, after };
}
