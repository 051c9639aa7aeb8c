import type { ActivityFilter, ActivityRow, CutPageResult, Deps, FieldChange, PageRequest, Repos } from '../shared/index.js';
import { type Actor, hasScope } from '../keys/index.js';
import { readablePageIds } from '../docs/index.js';
import { visibleBoards } from '../projects/index.js';
import { visibleTasksById } from '../tasks/index.js';

/*
 * One visibility rule for the activity log, whoever reads it (GET /tasks/{ref}/activity, GET /activity, the SDK,
 * MCP list_activity and get_task's history): an entry, and every id or title inside its changes, is shown only to a
 * reader who could read that object itself.
 *
 * - The entry's subject decides whether it is listed at all: the task of a task entry (the key's projects, a closed
 *   board only to its members), the page of a doc entry (docs:read, a closed space only to its members), and the
 *   meeting of task.created_from_agreement besides its task (meetings:read, a folder of one of the user's teams or
 *   open, the user's own personal meetings, none of a project hidden from the key). The store leaves the others out
 *   in the statement that reads the page (`activityReader` says what the reader may read), so a page is full and
 *   `total` counts only what the reader sees.
 * - Other objects a change names are taken out of the change (`readableEntries`): task ids (a page's `taskIds`, a
 *   task's `parentId`), page ids (a task's `docIds`), boards (a move's `boardId`) and their columns (`status`: a
 *   task's entries follow it to its board, so its creation may name a column of a closed board it came from). An id
 *   the reader may not read is removed from a list and becomes null in place of a single value (a column: `{id, name}`);
 *   a change that then shows nothing changed (both sides alike) is dropped. The entry stays, possibly with no
 *   change: its subject is the reader's to see, only the other object is not.
 *
 * The objects are checked with the features' own visibility functions, batched per page: at most one lookup of
 * tasks, one of pages and one of boards with their columns, whatever the number of entries.
 */

/** What `actor` may read of the log, as the store's filter: the start of every activity read. */
export function activityReader(actor: Actor): ActivityFilter {
  return {
    workspaceId: actor.workspace.id, userId: actor.user.id, visibleProjectIds: actor.key.projectIds, teamIds: actor.user.teamIds,
    pages: hasScope(actor, 'docs:read'), meetings: hasScope(actor, 'meetings:read'),
  };
}

/** Fields whose values are ids of other tasks, of pages, of boards; and of columns (`{id, name}`). */
const TASK_FIELDS = new Set(['taskIds', 'parentId']);
const PAGE_FIELDS = new Set(['docIds']);
const BOARD_FIELDS = new Set(['boardId']);
const COLUMN_FIELDS = new Set(['status']);

const idsIn = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
/** The value with the ids not in `keep` taken out: a list loses them, a single id becomes null. */
const keepOnly = (v: unknown, keep: Set<string>): unknown =>
  typeof v === 'string' ? (keep.has(v) ? v : null) : Array.isArray(v) ? v.filter((x) => typeof x !== 'string' || keep.has(x)) : v;
/** A column `{id, name}` when its board is the reader's, else null. */
const keepColumn = (v: unknown, keep: Set<string>): unknown => {
  const id = v !== null && typeof v === 'object' ? (v as { id?: unknown }).id : undefined;
  return typeof id === 'string' && !keep.has(id) ? null : v;
};
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The rows with every id of another object the reader may not read taken out of their changes (see above). The
 * rows themselves were chosen by the store with `activityReader`.
 */
export async function readableEntries(actor: Actor, rows: ActivityRow[], repos: Repos): Promise<ActivityRow[]> {
  const taskIds: string[] = [];
  const pageIds: string[] = [];
  const boardProjects: string[] = [];
  for (const r of rows) {
    for (const c of r.changes) {
      if (TASK_FIELDS.has(c.field)) taskIds.push(...idsIn(c.from), ...idsIn(c.to));
      else if (PAGE_FIELDS.has(c.field)) pageIds.push(...idsIn(c.from), ...idsIn(c.to));
      else if ((BOARD_FIELDS.has(c.field) || COLUMN_FIELDS.has(c.field)) && r.projectId !== null) boardProjects.push(r.projectId);
    }
  }
  if (!taskIds.length && !pageIds.length && !boardProjects.length) return rows;
  const [tasks, pages, boards] = await Promise.all([
    taskIds.length ? visibleTasksById(actor, taskIds, repos).then((m) => new Set(m.keys())) : new Set<string>(),
    readablePageIds(actor, pageIds, repos),
    boardProjects.length ? visibleBoards(actor, boardProjects, repos) : [],
  ]);
  const boardIds = new Set(boards.map((b) => b.id));
  const columnIds = new Set(boards.flatMap((b) => b.statuses.map((c) => c.id)));
  const narrowed = (field: string, v: unknown): unknown =>
    TASK_FIELDS.has(field) ? keepOnly(v, tasks)
    : PAGE_FIELDS.has(field) ? keepOnly(v, pages)
    : BOARD_FIELDS.has(field) ? keepOnly(v, boardIds)
    : COLUMN_FIELDS.has(field) ? keepColumn(v, columnIds)
    : v;
  return rows.map((r) => {
    let changed = false;
    const changes: FieldChange[] = [];
    for (const c of r.changes) {
      const [from, to] = [narrowed(c.field, c.from), narrowed(c.field, c.to)];
      if (from === c.from && to === c.to) changes.push(c);
      else {
        changed = true;
        if (!same(from, to)) changes.push({ field: c.field, from, to });
      }
    }
    return changed ? { ...r, changes } : r;
  });
}

/** What a read asks for beyond what the reader may see: period, project, person, task. */
export type ActivityNarrowing = Omit<ActivityFilter, 'workspaceId' | 'userId' | 'visibleProjectIds' | 'teamIds' | 'pages' | 'meetings'>;

/**
 * A page of the log as `actor` may read it: the store's page of the entries it may see (one statement), their
 * changes narrowed (one batch of lookups). Every activity read goes through here.
 */
export async function readActivity(
  actor: Actor, narrowing: ActivityNarrowing, page: PageRequest, deps: Pick<Deps, 'store'>,
): Promise<CutPageResult<ActivityRow>> {
  const read = await deps.store.activity.list({ ...narrowing, ...activityReader(actor) }, page);
  return { ...read, rows: await readableEntries(actor, read.rows, deps.store) };
}
