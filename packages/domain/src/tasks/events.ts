import type { Deps, Repos } from '../shared/index.js';
import { recordEvent, taskChanges, type WebhookEventType, type WebhookRecord } from '../webhooks/index.js';
import type { TaskRecord } from './ports.js';
import { presentTaskSummary } from './present.js';

/** A task's webhook events, recorded in the transaction of the change. */

/** A task as events show it: the summary fields plus description and checklist (no extra queries). */
export function webhookTask(t: TaskRecord): Record<string, unknown> {
  return {
    ...presentTaskSummary(t),
    description: t.descriptionHtml,
    descriptionText: t.descriptionText,
    checklist: t.checklist.map((c) => ({ id: c.id, text: c.text, done: c.done })),
  };
}

/** The few fields naming a task in comment and time events. */
export const taskRefOf = (t: TaskRecord) => ({ id: t.id, key: t.key, projectId: t.projectId, title: t.title });
/** task.created, task.archived, task.restored, task.deleted: the task as it is (or was, for deleted). */
export function taskEvent(
  repos: Repos, deps: Pick<Deps, 'newId' | 'now'>, type: WebhookEventType, actorId: string | null, task: TaskRecord, known?: WebhookRecord[],
): Promise<number> {
  return recordEvent(repos, deps, { workspaceId: task.workspaceId, projectId: task.projectId, type, data: { actorId, task: webhookTask(task) } }, known);
}

const place = (t: TaskRecord) => ({ boardId: t.boardId, statusId: t.statusId, status: { name: t.statusName, category: t.statusCategory } });
/**
 * After a task changed: task.updated with the changed field names and their previous values when fields changed, and
 * task.moved when its board, column or place in the column changed.
 */
export async function taskChangeEvents(repos: Repos, deps: Pick<Deps, 'newId' | 'now'>, actorId: string, before: TaskRecord, after: TaskRecord): Promise<void> {
  const task = webhookTask(after);
  const { changes, previous } = taskChanges(webhookTask(before), task);
  const base = { workspaceId: after.workspaceId, projectId: after.projectId };
  if (changes.length) await recordEvent(repos, deps, { ...base, type: 'task.updated', data: { actorId, task, changes, previous } });
  if (before.statusId !== after.statusId || before.boardId !== after.boardId || before.rank !== after.rank) {
    await recordEvent(repos, deps, { ...base, type: 'task.moved', data: { actorId, task, from: place(before), to: place(after) } });
  }
}
