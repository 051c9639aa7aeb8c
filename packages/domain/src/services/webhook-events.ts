import type { Deps } from '../deps.js';
import { job } from '../jobs.js';
import type { Repos, TaskRecord } from '../ports.js';
import type { WebhookRecord } from '../webhook-ports.js';
import { presentTaskSummary } from '../presenters.js';
import { taskChanges } from '../rules/webhooks.js';
import type { WebhookEventType } from '../schemas/webhook.js';

/**
 * Records a webhook event in the transaction of the change that caused it: one event row, a delivery per active
 * subscription that takes it, and a `webhooks.deliver` job per delivery in the outbox. A rollback leaves nothing; a
 * commit keeps all of it even while the queue is down. A workspace without subscriptions pays one indexed lookup;
 * a caller that looked the subscriptions up earlier in the transaction passes them.
 * The caller wakes the relay after the commit (deps.jobs.notify()).
 */
export async function recordEvent(
  repos: Repos,
  deps: Pick<Deps, 'newId' | 'now'>,
  e: { workspaceId: string; projectId: string | null; type: WebhookEventType; data: Record<string, unknown> },
  known?: WebhookRecord[],
): Promise<number> {
  const subscriptions = known ?? (await repos.webhooks.matching(e.workspaceId, e.type, e.projectId));
  if (!subscriptions.length) return 0;
  const id = deps.newId('evt');
  const createdAt = deps.now();
  await repos.webhooks.addEvent({ id, workspaceId: e.workspaceId, projectId: e.projectId, type: e.type, data: e.data, createdAt });
  const deliveries = subscriptions.map((s) => ({ id: deps.newId('whd'), webhookId: s.id, eventId: id, createdAt, redeliveryOf: null }));
  await repos.webhooks.addDeliveries(deliveries);
  await repos.outbox.add(deliveries.map((d) => job('webhooks.deliver', { deliveryId: d.id })));
  return deliveries.length;
}

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
