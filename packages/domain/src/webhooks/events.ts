import { type Deps, job, type Repos } from '../shared/index.js';
import type { WebhookRecord } from './ports.js';
import type { WebhookEventType } from './schema.js';

/** What an event is about, as watchers hear of it: a task (its id and key) or a page. */
export type EventSubject = { task: { id: string; key: string } } | { doc: { id: string } };

/**
 * Records a webhook event in the transaction of the change that caused it: one event row, a delivery per active
 * subscription that takes it, and a `webhooks.deliver` job per delivery in the outbox. A rollback leaves nothing; a
 * commit keeps all of it even while the queue is down. A workspace without subscriptions pays one indexed lookup;
 * a caller that looked the subscriptions up earlier in the transaction passes them.
 *
 * Every change of a task (its fields, a move, a comment, a time entry) and of a page passes here, so this is where
 * watchers are told: the note of `subject` goes out when the transaction commits (see shared/changes.ts). `data`, the
 * event's payload, is built only when a subscription takes the event: most workspaces have none, and their writes
 * build no payload.
 * The caller wakes the relay after the commit (deps.jobs.notify()) when this returns more than 0.
 */
export async function recordEvent(
  repos: Repos,
  deps: Pick<Deps, 'newId' | 'now'>,
  e: { workspaceId: string; projectId: string | null; type: WebhookEventType; subject: EventSubject; data: () => Record<string, unknown> },
  known?: WebhookRecord[],
): Promise<number> {
  const { workspaceId, subject } = e;
  repos.changes.note('task' in subject
    ? { kind: 'task', workspaceId, id: subject.task.id, key: subject.task.key }
    : { kind: 'doc', workspaceId, id: subject.doc.id });
  const subscriptions = known ?? (await repos.webhooks.matching(workspaceId, e.type, e.projectId));
  if (!subscriptions.length) return 0;
  const id = deps.newId('evt');
  const createdAt = deps.now();
  await repos.webhooks.addEvent({ id, workspaceId, projectId: e.projectId, type: e.type, data: e.data(), createdAt });
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
