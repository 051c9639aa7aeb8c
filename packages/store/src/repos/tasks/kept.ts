import type { Knex } from 'knex';
import type { TaskView } from '@tt/domain';
import { keepAtMost } from '../../util.js';

/** At most this many tasks are kept per database, the oldest forgotten first. */
const TASKS_KEPT = 2_000;
/** A task whose description is longer than this (characters, HTML and text together) is not kept: memory stays small. */
const KEPT_TEXT = 4_000;

/**
 * The tasks this process last read or changed outside a transaction, per database (a test's databases never share
 * one), by `workspace/key` and `workspace/#id`. Nothing here is trusted: a change planned on a kept task writes only if
 * the task's version and its board's members are still those (`updateTaskView`'s guard), else it is planned again on
 * a fresh read. A read inside a transaction is not kept: what it saw may be rolled back.
 */
const keptTasks = new WeakMap<object, Map<string, TaskView>>();

function tasksOf(db: Knex): Map<string, TaskView> | undefined {
  if (db.isTransaction) return undefined;
  let kept = keptTasks.get(db.client);
  if (!kept) keptTasks.set(db.client, (kept = new Map()));
  return kept;
}

const byKey = (workspaceId: string, key: string) => `${workspaceId}/${key}`;
const byId = (workspaceId: string, id: string) => `${workspaceId}/#${id}`;

/** The kept task `ref` names in the workspace, if any. */
export function keptTask(db: Knex, workspaceId: string, ref: { id?: string; key?: string }): TaskView | undefined {
  const kept = tasksOf(db);
  if (!kept) return undefined;
  return ref.id !== undefined ? kept.get(byId(workspaceId, ref.id)) : ref.key !== undefined ? kept.get(byKey(workspaceId, ref.key)) : undefined;
}

/** Keeps a task as a statement outside any transaction has just read it (or as a change left it). */
export function keepTask(db: Knex, view: TaskView | undefined): void {
  const kept = view && tasksOf(db);
  if (!kept || !view) return;
  const { task } = view;
  const entry = { task: view.task, boardMemberIds: view.boardMemberIds };
  if (task.descriptionHtml.length + task.descriptionText.length > KEPT_TEXT) {
    kept.delete(byKey(task.workspaceId, task.key));
    kept.delete(byId(task.workspaceId, task.id));
    return;
  }
  keepAtMost(kept, TASKS_KEPT, byKey(task.workspaceId, task.key), entry);
  keepAtMost(kept, TASKS_KEPT, byId(task.workspaceId, task.id), entry);
}
