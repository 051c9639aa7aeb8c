import { type CutPage, cutPage, decodeCursor, type Deps, encodeCursor, invalid, momentIn, type Page, uncut } from '../shared/index.js';
import { type Actor, apiKeyHash, type AuthRequest, checkKeyUse, requireScope } from '../keys/index.js';
import { assigneeFilter, filterUserId } from '../people/index.js';
import { type Versioned, withoutVersion } from '../versions/index.js';
import { seen, taskRef } from './lookup.js';
import { presentTask, presentTaskSummary } from './present.js';
import type { PositionOption, TaskFullView } from './ports.js';
import type { ListTasksQuery, Task, TaskSummary } from './schema.js';

/**
 * A task's full form. Its position in its column (a count of the tasks above it, not in the spec's form) only when
 * asked for: `o.position`.
 */
export async function getTaskVersioned(
  actor: Actor, ref: string, deps: Deps, o: PositionOption & { readAhead?: TaskReadAhead | undefined } = {},
): Promise<Versioned<Task>> {
  requireScope(actor, 'tasks:read');
  // Read with the key (authenticateReadingTask) when that read was of this task in this form; else the row, its
  // visibility and its details in one query. Either way the same checks decide what the actor may see.
  const ahead = o.readAhead?.ref === ref && o.position !== true ? o.readAhead : undefined;
  const view = seen(actor, ahead ? ahead.view : await deps.store.tasks.fullView(actor.workspace.id, taskRef(ref), actor.user.id, { position: o.position === true }));
  return { data: presentTask(view.task, view.details), version: view.task.version };
}

/** A task read in the statement that found the request's key (authenticateReadingTask), as the path named it. */
export interface TaskReadAhead {
  ref: string;
  view: TaskFullView | undefined;
}

/**
 * A request's key (as `keys.authenticate`) and the task `ref` of a by-key read in one query: the task is looked up in
 * the key's workspace as the key's user sees it, and handed on only with the actor, once every check of the key has
 * passed (a revoked key, a deleted person, an expired key refuse as they do alone). getTaskVersioned then checks the
 * key's right and what its projects and the board's members let it see, as on a task read on its own.
 */
export async function authenticateReadingTask(req: AuthRequest, ref: string, deps: Deps): Promise<{ actor: Actor; task: TaskReadAhead }> {
  const found = await deps.store.tasks.fullViewWithKey(apiKeyHash(req), taskRef(ref));
  const actor = checkKeyUse(found, req, deps);
  return { actor, task: { ref, view: found?.task } };
}

export const getTask = withoutVersion(getTaskVersioned);
/** A page of tasks with `cursorAfter(n)` (see CutPage). */
export type TaskPage = CutPage<Page<TaskSummary>>;

export async function listTasks(actor: Actor, query: ListTasksQuery, deps: Deps): Promise<Page<TaskSummary>> {
  return uncut(await listTaskPage(actor, query, deps));
}

export async function listTaskPage(actor: Actor, query: ListTasksQuery, deps: Deps): Promise<TaskPage> {
  requireScope(actor, 'tasks:read');
  const statusIds = query.statusId ?? [];
  const categories = query.category ?? [];
  if (query.orderBy === 'position' && statusIds.length !== 1) {
    throw invalid('orderBy', 'position order needs statusId (one column)');
  }
  if (query.dueAfter && query.dueBefore && query.dueAfter > query.dueBefore) throw invalid('dueAfter', `must not be after dueBefore (${query.dueBefore})`);
  // One value stays in the single-valued filter fields, which the store can count from its counters.
  const page = await deps.store.tasks.list(
    {
      workspaceId: actor.workspace.id, visibleProjectIds: actor.key.projectIds, userId: actor.user.id,
      projectId: query.projectId, boardId: query.boardId,
      statusId: statusIds.length === 1 ? statusIds[0] : undefined, statusIds: statusIds.length > 1 ? statusIds : undefined,
      category: categories.length === 1 ? categories[0] : undefined, categories: categories.length > 1 ? categories : undefined,
      assigneeId: await assigneeFilter(actor, query.assigneeId, deps.store),
      reporterId: query.reporterId === undefined ? undefined : await filterUserId(actor, query.reporterId, deps.store),
      types: query.type, priorities: query.priority,
      labels: query.label, parentId: query.parentId, dueBefore: query.dueBefore, dueAfter: query.dueAfter, updatedSince: momentIn(query.updatedSince, actor.workspace.timezone),
      createdSince: momentIn(query.createdSince, actor.workspace.timezone), createdBefore: momentIn(query.createdBefore, actor.workspace.timezone),
      q: query.q, archived: query.archived, orderBy: query.orderBy,
    },
    { limit: query.limit, after: decodeCursor(query.cursor) },
  );
  return cutPage({ data: page.rows.map(presentTaskSummary), nextCursor: encodeCursor(page.next), total: page.total }, page);
}
