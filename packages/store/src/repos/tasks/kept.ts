import type { Knex } from 'knex';
import type { TaskView } from '@tt/domain';
import { keepAtMost } from '../../util.js';

/**
 * The check a change planned on a kept task makes of it in its own statement, besides the version: the board of the
 * task row `task` (an alias) still has the members (one bound value; null: an open board) the plan saw.
 */
export const boardMembersHeld = (task: string): string =>
  `(select b.member_ids from boards b where b.id = ${task}.board_id) is not distinct from ?::text[]`;

/** At most this many tasks are kept per database, the oldest forgotten first. */
const TASKS_KEPT = 5_000;
/**
 * A task whose description is longer than this (characters, HTML and text together) is not kept: the memory stays
 * under about 20 MB even when every kept task is that long, and a few MB for tasks of ordinary length.
 */
const KEPT_TEXT = 2_000;

/**
 * The tasks this process last read or changed outside a transaction, per database (a test's databases never share
 * one), by `workspace/id`, with the ids of their keys by `workspace/key`. Nothing here is trusted: a change planned on
 * a kept task writes only if the task's version and its board's members are still those (`updateTaskView`'s guard),
 * else it is planned again on a fresh read. A read inside a transaction is not kept: what it saw may be rolled back.
 */
const keptTasks = new WeakMap<object, { tasks: Map<string, TaskView>; keys: Map<string, string> }>();

function tasksOf(db: Knex): { tasks: Map<string, TaskView>; keys: Map<string, string> } | undefined {
  if (db.isTransaction) return undefined;
  let kept = keptTasks.get(db.client);
  if (!kept) keptTasks.set(db.client, (kept = { tasks: new Map(), keys: new Map() }));
  return kept;
}

const byKey = (workspaceId: string, key: string) => `${workspaceId}/${key}`;
const byId = (workspaceId: string, id: string) => `${workspaceId}/${id}`;

/** The kept task `ref` names in the workspace, if any. */
export function keptTask(db: Knex, workspaceId: string, ref: { id?: string; key?: string }): TaskView | undefined {
  const kept = tasksOf(db);
  const id = ref.id ?? (ref.key !== undefined ? kept?.keys.get(byKey(workspaceId, ref.key)) : undefined);
  const view = id !== undefined ? kept?.tasks.get(byId(workspaceId, id)) : undefined;
  // A key names the task it was kept with only while that task still has it.
  return view && (ref.key === undefined || view.task.key === ref.key) ? view : undefined;
}

/** Keeps a task as a statement outside any transaction has just read it (or as a change left it). */
export function keepTask(db: Knex, view: TaskView | undefined): void {
  const kept = view && tasksOf(db);
  if (!kept || !view) return;
  const { task } = view;
  if (task.descriptionHtml.length + task.descriptionText.length > KEPT_TEXT) {
    kept.tasks.delete(byId(task.workspaceId, task.id));
    return;
  }
  keepAtMost(kept.tasks, TASKS_KEPT, byId(task.workspaceId, task.id), { task: view.task, boardMemberIds: view.boardMemberIds });
  keepAtMost(kept.keys, TASKS_KEPT, byKey(task.workspaceId, task.key), task.id);
}

/**
 * A statement that moved a task's version from `from` (guarded by it) and changed nothing else of its record but
 * `changed`, as a subtask's create does to its parent and a comment to its task (its `updatedAt`): the kept task, if
 * it was at `from`, is kept at the next version.
 */
export function keptVersionMoved(db: Knex, workspaceId: string, id: string, from: number, changed: { updatedAt?: number } = {}): void {
  const entry = tasksOf(db)?.tasks.get(byId(workspaceId, id));
  if (!entry || entry.task.version !== from) return;
  keepTask(db, { task: { ...entry.task, ...changed, version: from + 1 }, boardMemberIds: entry.boardMemberIds });
}
