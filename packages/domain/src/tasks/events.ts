import { type ActingAs, activityEntry, type ActivityRecord, type Deps, type FieldChange, recordActivity, type Repos, viaOf } from '../shared/index.js';
import { recordEvent, subscriptionsKnown, taskChanges, type WebhookEventType, type WebhookRecord } from '../webhooks/index.js';
import { activityTask, taskCreatedChanges, taskFieldChanges, taskMoveChanges } from './activity.js';
import type { TaskRecord } from './ports.js';
import { presentTaskSummary } from './present.js';

/** A task's webhook events and activity entries, recorded in the transaction of the change. */

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

/** The activity entry a webhook event carries: the same id, channel and changes the activity log shows. */
const entryOf = (e: { id: string; changes: FieldChange[] }, actor: ActingAs | null) => ({
  id: e.id, via: actor ? viaOf(actor) : { channel: 'operator', keyId: null, clientName: null }, changes: e.changes,
});

/** No subscription to deliver to, known as the key was read: an event then only notes the change. */
const quiet = (known: WebhookRecord[] | undefined): boolean => known !== undefined && known.length === 0;

/**
 * task.created, task.archived, task.restored, task.deleted: the task as it is (or was, for deleted). `actor` null is
 * the operator.
 */
export async function taskEvent(
  repos: Repos, deps: Pick<Deps, 'newId' | 'now'>, type: WebhookEventType, actor: ActingAs | null, task: TaskRecord, known?: WebhookRecord[],
  written?: ActivityRecord,
): Promise<number> {
  const subscriptions = known ?? subscriptionsKnown(actor);
  // A create writes its entry in the insert's own statement (tasks.append) and passes it here for the webhook.
  const entry = written ?? (await recordActivity(
    repos, deps, actor, task.workspaceId, activityTask(task), type, type === 'task.created' ? taskCreatedChanges(task) : [],
  ));
  // Without subscriptions the event only tells watchers (recordEvent keeps nothing else): no payload is built.
  const data = quiet(subscriptions)
    ? { task: { id: task.id, key: task.key } }
    : { actorId: actor?.user.id ?? null, task: webhookTask(task), activity: entryOf(entry, actor) };
  return recordEvent(repos, deps, { workspaceId: task.workspaceId, projectId: task.projectId, type, data }, subscriptions);
}

/**
 * The task.updated entry a change of `before` into `after` makes (as taskChangeEvents would record it), not yet
 * written; undefined when the change is not one (nothing a field or a webhook shows moved).
 */
export function changeEntry(deps: Pick<Deps, 'newId' | 'now'>, actor: ActingAs, before: TaskRecord, after: TaskRecord): ActivityRecord | undefined {
  const fields = taskFieldChanges(before, after);
  if (!fields.length && !taskChanges(webhookTask(before), webhookTask(after)).changes.length) return undefined;
  return activityEntry(deps, actor, after.workspaceId, activityTask(after), 'task.updated', fields);
}

const UNCOMPARED: ReturnType<typeof taskChanges> = { changes: [], previous: {} };
const place = (t: TaskRecord) => ({ boardId: t.boardId, statusId: t.statusId, status: { name: t.statusName, category: t.statusCategory } });
/**
 * After a task changed: task.updated with the changed field names and their previous values when fields changed, and
 * task.moved when its board, column or place in the column changed; an activity entry for each (`updated`: the
 * task.updated entry, written with the change itself). Returns the webhook deliveries queued (0: the relay has
 * nothing to take).
 */
export async function taskChangeEvents(repos: Repos, deps: Pick<Deps, 'newId' | 'now'>, actor: ActingAs, before: TaskRecord, after: TaskRecord,
  updated?: ActivityRecord,
): Promise<number> {
  const actorId = actor.user.id;
  const base = { workspaceId: after.workspaceId, projectId: after.projectId };
  const fields = taskFieldChanges(before, after);
  const known = subscriptionsKnown(actor);
  // With no subscription to deliver to (known as the key was read), an event only notes the change (recordEvent keeps
  // no data then): no payload is built, and the fields a webhook shows are compared only when no field of the entry
  // changed, to tell whether there is an event at all.
  const none = quiet(known);
  const payload = none ? undefined : webhookTask(after);
  const { changes, previous } = none && fields.length ? UNCOMPARED : taskChanges(webhookTask(before), payload ?? webhookTask(after));
  const task = payload ?? { id: after.id, key: after.key };
  let queued = 0;
  if (changes.length || fields.length) {
    const entry = updated ?? (await recordActivity(repos, deps, actor, after.workspaceId, activityTask(after), 'task.updated', fields));
    queued += await recordEvent(repos, deps, { ...base, type: 'task.updated', data: { actorId, task, changes, previous, activity: entryOf(entry, actor) } }, known);
  }
  if (before.statusId !== after.statusId || before.boardId !== after.boardId || before.rank !== after.rank) {
    // The task's earlier entries follow it: who may read them is who may read the task now.
    if (before.boardId !== after.boardId) await repos.activity.moveTask(after.id, after.boardId);
    const entry = await recordActivity(repos, deps, actor, after.workspaceId, activityTask(after), 'task.moved', taskMoveChanges(before, after));
    queued += await recordEvent(repos, deps, { ...base, type: 'task.moved', data: { actorId, task, from: place(before), to: place(after), activity: entryOf(entry, actor) } }, known);
  }
  return queued;
}
