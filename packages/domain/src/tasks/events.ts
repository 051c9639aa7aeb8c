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

/**
 * task.created, task.archived, task.restored, task.deleted: the task as it is (or was, for deleted). `actor` null is
 * the operator.
 */
export async function taskEvent(
  repos: Repos, deps: Pick<Deps, 'newId' | 'now'>, type: WebhookEventType, actor: ActingAs | null, task: TaskRecord, known?: WebhookRecord[],
  written?: ActivityRecord,
): Promise<number> {
  // A create writes its entry in the insert's own statement (tasks.append) and passes it here for the webhook.
  const entry = written ?? (await recordActivity(
    repos, deps, actor, task.workspaceId, activityTask(task), type, type === 'task.created' ? taskCreatedChanges(task) : [],
  ));
  return recordEvent(repos, deps, {
    workspaceId: task.workspaceId, projectId: task.projectId, type, subject: { task },
    data: () => ({ actorId: actor?.user.id ?? null, task: webhookTask(task), activity: entryOf(entry, actor) }),
  }, known ?? subscriptionsKnown(actor));
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

/**
 * The task.moved entry a change of `before` into `after` makes (as taskChangeEvents would record it), not yet written;
 * undefined when the change does not move the task.
 */
export function moveEntry(deps: Pick<Deps, 'newId' | 'now'>, actor: ActingAs, before: TaskRecord, after: TaskRecord): ActivityRecord | undefined {
  if (before.statusId === after.statusId && before.boardId === after.boardId && before.rank === after.rank) return undefined;
  return activityEntry(deps, actor, after.workspaceId, activityTask(after), 'task.moved', taskMoveChanges(before, after));
}

/** `make`'s value, made on the first call. */
const once = <T>(make: () => T): (() => T) => {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
};

const place = (t: TaskRecord) => ({ boardId: t.boardId, statusId: t.statusId, status: { name: t.statusName, category: t.statusCategory } });
/**
 * After a task changed: task.updated with the changed field names and their previous values when fields changed, and
 * task.moved when its board, column or place in the column changed; an activity entry for each (`updated` and
 * `moved`: the entries already written with the change itself). Returns the webhook deliveries queued (0: the relay has
 * nothing to take). The fields a webhook shows are compared only when that decides whether there is an event (no
 * field of the entry changed) or when a payload is built.
 */
export async function taskChangeEvents(repos: Repos, deps: Pick<Deps, 'newId' | 'now'>, actor: ActingAs, before: TaskRecord, after: TaskRecord,
  updated?: ActivityRecord, moved?: ActivityRecord,
): Promise<number> {
  const actorId = actor.user.id;
  const base = { workspaceId: after.workspaceId, projectId: after.projectId, subject: { task: after } };
  const fields = taskFieldChanges(before, after);
  const known = subscriptionsKnown(actor);
  const task = once(() => webhookTask(after));
  const compared = once(() => taskChanges(webhookTask(before), task()));
  let queued = 0;
  if (fields.length || compared().changes.length) {
    const entry = updated ?? (await recordActivity(repos, deps, actor, after.workspaceId, activityTask(after), 'task.updated', fields));
    queued += await recordEvent(repos, deps, {
      ...base, type: 'task.updated',
      data: () => ({ actorId, task: task(), changes: compared().changes, previous: compared().previous, activity: entryOf(entry, actor) }),
    }, known);
  }
  if (before.statusId !== after.statusId || before.boardId !== after.boardId || before.rank !== after.rank) {
    // The task's earlier entries follow it: who may read them is who may read the task now.
    if (before.boardId !== after.boardId) await repos.activity.moveTask(after.id, after.boardId);
    const entry = moved ?? (await recordActivity(repos, deps, actor, after.workspaceId, activityTask(after), 'task.moved', taskMoveChanges(before, after)));
    queued += await recordEvent(repos, deps, {
      ...base, type: 'task.moved', data: () => ({ actorId, task: task(), from: place(before), to: place(after), activity: entryOf(entry, actor) }),
    }, known);
  }
  return queued;
}
