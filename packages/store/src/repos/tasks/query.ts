import type { Knex } from 'knex';
import type { TaskFilter } from '@tt/domain';
import { parsePosition, position } from '../../position.js';
import { dayOrNull, isCalendarDay } from '../../util.js';

/**
 * The task-list parts beyond the original GET /tasks: column and category lists, due-after and creation bounds, and the
 * orders other than creation and column position. Each order is a keyset over (sort key, id) with an index of the
 * same expression (migration 007), so a page costs the same at any depth.
 */

export const PRIORITY_RANK = "(case tasks.priority when 'highest' then 1 when 'high' then 2 when 'medium' then 3 when 'low' then 4 else 5 end)";
/** Tasks without a due day sort after every dated one. */
export const DUE_KEY = "coalesce(tasks.due_date, '9999-12-31'::date)";

interface KeyedOrder {
  expr: string;
  desc: boolean;
  cast: string;
  valid(value: string): boolean;
}

const KEYED: Record<'priority' | 'dueDate' | 'updated', KeyedOrder> = {
  priority: { expr: PRIORITY_RANK, desc: false, cast: '?::int', valid: (v) => /^[1-5]$/.test(v) },
  dueDate: { expr: DUE_KEY, desc: false, cast: '?::date', valid: isCalendarDay },
  updated: { expr: 'tasks.updated_at', desc: true, cast: '?::bigint', valid: (v) => /^\d{1,16}$/.test(v) },
};

export const isKeyedOrder = (o: TaskFilter['orderBy']): o is keyof typeof KEYED => o in KEYED;

/** Filters of TaskFilter that take lists or bounds, added to the shared WHERE. */
export function extraFilters(db: Knex, q: Knex.QueryBuilder, f: TaskFilter): void {
  if (f.statusIds?.length) q.whereIn('tasks.status_id', f.statusIds);
  if (f.categories?.length) {
    q.whereIn(
      'tasks.status_id',
      db('statuses as xs').join('boards as xb', 'xb.id', 'xs.board_id').select('xs.id').where('xb.workspace_id', f.workspaceId).whereIn('xs.category', f.categories),
    );
  }
  if (f.dueAfter) q.where('tasks.due_date', '>=', f.dueAfter);
  if (f.createdSince !== undefined) q.where('tasks.created_at', '>=', f.createdSince);
  if (f.createdBefore !== undefined) q.where('tasks.created_at', '<', f.createdBefore);
}

/** Orders the rows by a keyed order from the position after `after` ("<sort key>|<id>"), selecting the key as sort_key. */
export function keyedOrder(db: Knex, rows: Knex.QueryBuilder, order: keyof typeof KEYED, after: string | undefined): void {
  const k = KEYED[order];
  rows.select(db.raw(`${k.expr} as sort_key`));
  if (after !== undefined) {
    const [value, id] = parsePosition(after, 2, ([v]) => k.valid(v));
    rows.whereRaw(`(${k.expr}, tasks.id) ${k.desc ? '<' : '>'} (${k.cast}, ?)`, [value, id]);
  }
  const dir = k.desc ? 'desc' : 'asc';
  rows.orderByRaw(`${k.expr} ${dir}, tasks.id ${dir}`);
}

/** The same order over the rows of the page subquery (aliased `r`). */
export const keyedOuterOrder = (order: keyof typeof KEYED) => {
  const dir = KEYED[order].desc ? 'desc' : 'asc';
  return [{ column: 'r.sort_key', order: dir }, { column: 'r.id', order: dir }];
};

/** True when the filter uses a part the task_counts counters do not keep. */
export const hasExtraFilters = (f: TaskFilter): boolean =>
  Boolean(f.statusIds?.length || f.categories?.length || f.dueAfter || f.createdSince !== undefined || f.createdBefore !== undefined);

/** The position after a row of a keyed order: "<sort key>|<id>" (dates come back as Date from pg). */
export function keyedNext(order: keyof typeof KEYED, row: Record<string, unknown>): string {
  const v = order === 'dueDate' ? dayOrNull(row.sort_key) : String(Number(row.sort_key));
  return position(v, String(row.id));
}
