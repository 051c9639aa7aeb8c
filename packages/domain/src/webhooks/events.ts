import { type Deps, job, type Repos } from '../shared/index.js';
import type { WebhookRecord } from './ports.js';
import type { WebhookEventType } from './schema.js';

/**
 * Every change of a task (its fields, a move, a comment, a time entry) and of a page passes here, so this is where
 * watchers are told: the note goes out when the transaction commits (see shared/changes.ts).
 */
function noteChange(repos: Repos, e: { workspaceId: string; data: Record<string, unknown> }): void {
  const task = e.data.task as { id?: unknown; key?: unknown } | undefined;
  if (task && typeof task.id === 'string' && typeof task.key === 'string') repos.changes.note({ kind: 'task', workspaceId: e.workspaceId, id: task.id, key: task.key });
  const doc = e.data.doc as { id?: unknown } | undefined;
  if (doc && typeof doc.id === 'string') repos.changes.note({ kind: 'doc', workspaceId: e.workspaceId, id: doc.id });
}

/**
 * Records a webhook event in the transaction of the change that caused it: one event row, a delivery per active
 * subscription that takes it, and a `webhooks.deliver` job per delivery in the outbox. A rollback leaves nothing; a
 * commit keeps all of it even while the queue is down. A workspace without subscriptions pays one indexed lookup;
 * a caller that looked the subscriptions up earlier in the transaction passes them. With none, the event only notes
 * the change for watchers (`data.task`'s id and key, or `data.doc`'s id) and keeps nothing else of `data`.
 * The caller wakes the relay after the commit (deps.jobs.notify()) when this returns more than 0.
 */
export async function recordEvent(
  repos: Repos,
  deps: Pick<Deps, 'newId' | 'now'>,
  e: { workspaceId: string; projectId: string | null; type: WebhookEventType; data: Record<string, unknown> },
  known?: WebhookRecord[],
): Promise<number> {
  noteChange(repos, e);
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

/**
 * The subscriptions an event of `actor`'s write goes to, when known without a lookup: none, when the workspace had no
 * active subscription as the request's key was read. Undefined: look them up (recordEvent does).
 */
export const subscriptionsKnown = (actor: { webhooks?: boolean | undefined } | null): WebhookRecord[] | undefined =>
  actor?.webhooks === false ? [] : undefined;
