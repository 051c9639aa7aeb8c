import { decodeCursor, type Deps, encodeCursor, invalid, job, notFound, type Page, recordAudit, rejected, type Repos } from '../shared/index.js';
import { webhookPorts } from './delivery.js';
import type { WebhookDeliveryRecord, WebhookPatch, WebhookRecord } from './ports.js';
import { newWebhookSecret, parseWebhookUrl, refusedAddress } from './rules.js';
import {
  type CreateWebhookInput, type ListDeliveriesQuery, PROJECTLESS_EVENTS, type UpdateWebhookInput, type Webhook,
  type WebhookDelivery, type WebhookEventType, type WebhookWithSecret,
} from './schema.js';

/** The subscription as the operator sees it: never the secrets. */
export const presentWebhook = (w: WebhookRecord): Webhook => ({
  id: w.id, workspaceId: w.workspaceId, url: w.url, events: w.events, projectIds: w.projectIds, active: w.active,
  failingSince: w.failingSince, disabledAt: w.disabledAt, disabledReason: w.disabledReason,
  previousSecretExpiresAt: w.previousSecretExpiresAt, createdAt: w.createdAt, updatedAt: w.updatedAt,
});

export const presentDelivery = (d: WebhookDeliveryRecord): WebhookDelivery => ({
  id: d.id, webhookId: d.webhookId, eventId: d.eventId, event: d.eventType, status: d.status, attempts: d.attempts,
  lastStatusCode: d.lastStatusCode, lastError: d.lastError, durationMs: d.durationMs, createdAt: d.createdAt,
  lastAttemptAt: d.lastAttemptAt, nextAttemptAt: d.nextAttemptAt, succeededAt: d.succeededAt, redeliveryOf: d.redeliveryOf,
});

/** A URL whose host resolves only to allowed addresses (public ones, or private too with WEBHOOK_ALLOW_PRIVATE). */
async function checkedUrl(raw: string, deps: Deps): Promise<string> {
  const ports = webhookPorts(deps);
  const target = parseWebhookUrl(raw);
  let addresses: string[] = [target.host];
  if (!target.literal) addresses = await ports.resolve(target.host).catch(() => []);
  const refused = refusedAddress(target.host, addresses, ports.allowPrivate);
  if (refused) throw invalid('url', refused);
  return target.url;
}

/** Projects of the workspace; document events belong to no project, so a project-limited subscription cannot take them. */
async function checkScope(workspaceId: string, events: WebhookEventType[], projectIds: string[] | null, deps: Deps): Promise<void> {
  if (projectIds === null) return;
  const found = new Set((await deps.store.projects.byIds(workspaceId, projectIds)).map((p) => p.id));
  const missing = projectIds.filter((id) => !found.has(id));
  if (missing.length) throw invalid('projectIds', `unknown project ${missing.join(', ')}`);
  const projectless = events.filter((e) => PROJECTLESS_EVENTS.includes(e));
  if (projectless.length) {
    throw invalid('events', `${projectless.join(', ')} belong to no project, so a subscription limited to projects never receives them; drop them or set projectIds to null`);
  }
}

/**
 * What the audit log keeps of a subscription: its events, projects and state, and only the URL's origin, since a
 * receiver's path or query often carries a token of its own. Never the signing secret.
 */
const auditOf = (w: Pick<WebhookRecord, 'url' | 'events' | 'projectIds' | 'active'>) => {
  let origin: string;
  try {
    origin = new URL(w.url).origin;
  } catch {
    origin = '';
  }
  return { origin, events: w.events, projectIds: w.projectIds, active: w.active };
};

async function audit(repos: Repos, deps: Deps, w: WebhookRecord, action: string, details: Record<string, unknown>): Promise<void> {
  await recordAudit(repos, deps, null, { workspaceId: w.workspaceId, action, targetType: 'webhook', targetId: w.id, details });
}

async function webhookOr404(id: string, deps: Deps): Promise<WebhookRecord> {
  const w = await deps.store.webhooks.get(id);
  if (!w) throw notFound('Webhook');
  return w;
}

/** Operator: subscribes a URL to events of a workspace; the signing secret is in this answer only. */
export async function createWebhook(workspaceId: string, input: CreateWebhookInput, deps: Deps): Promise<WebhookWithSecret> {
  if (!(await deps.store.workspaces.get(workspaceId))) throw notFound('Workspace');
  const url = await checkedUrl(input.url, deps);
  await checkScope(workspaceId, input.events, input.projectIds, deps);
  const now = deps.now();
  const w = await deps.store.transaction(async (store) => {
    const created = await store.webhooks.create({
      workspaceId, url, events: input.events, projectIds: input.projectIds, active: true, secret: newWebhookSecret(),
      previousSecret: null, previousSecretExpiresAt: null, failingSince: null, disabledAt: null, disabledReason: null,
      createdAt: now, updatedAt: now,
    });
    await audit(store, deps, created, 'webhook.created', auditOf(created));
    return created;
  });
  return { ...presentWebhook(w), secret: w.secret };
}

export async function listWebhooks(workspaceId: string, deps: Deps): Promise<Webhook[]> {
  if (!(await deps.store.workspaces.get(workspaceId))) throw notFound('Workspace');
  return (await deps.store.webhooks.list(workspaceId)).map(presentWebhook);
}

/** Changes url, events, projects or active; switching it on again clears the record of failures. */
export async function updateWebhook(id: string, input: UpdateWebhookInput, deps: Deps): Promise<Webhook> {
  const w = await webhookOr404(id, deps);
  const patch: WebhookPatch = { updatedAt: deps.now() };
  if (input.url !== undefined) patch.url = await checkedUrl(input.url, deps);
  if (input.events !== undefined) patch.events = input.events;
  if (input.projectIds !== undefined) patch.projectIds = input.projectIds;
  await checkScope(w.workspaceId, patch.events ?? w.events, patch.projectIds !== undefined ? patch.projectIds : w.projectIds, deps);
  if (input.active !== undefined && input.active !== w.active) {
    patch.active = input.active;
    if (input.active) Object.assign(patch, { failingSince: null, disabledAt: null, disabledReason: null });
    else Object.assign(patch, { disabledAt: patch.updatedAt, disabledReason: 'switched off by the operator' });
  }
  return deps.store.transaction(async (store) => {
    const updated = (await store.webhooks.update(id, patch))!;
    await audit(store, deps, updated, 'webhook.changed', { from: auditOf(w), to: auditOf(updated) });
    return presentWebhook(updated);
  });
}

export async function deleteWebhook(id: string, deps: Deps): Promise<void> {
  await deps.store.transaction(async (store) => {
    const w = await store.webhooks.get(id);
    if (!w || !(await store.webhooks.delete(id))) throw notFound('Webhook');
    await audit(store, deps, w, 'webhook.deleted', auditOf(w));
  });
}

/** A new secret; the previous one keeps signing (a second v1) for the policy's overlap, 24 h by default. */
export async function rotateSecret(id: string, deps: Deps): Promise<WebhookWithSecret> {
  await webhookOr404(id, deps);
  const now = deps.now();
  const updated = await deps.store.transaction(async (repos) => {
    const w = await repos.webhooks.get(id);
    if (!w) throw notFound('Webhook');
    const rotated = (await repos.webhooks.update(id, {
      secret: newWebhookSecret(), previousSecret: w.secret, previousSecretExpiresAt: now + webhookPorts(deps).policy.secretOverlapMs, updatedAt: now,
    }))!;
    await audit(repos, deps, rotated, 'webhook.secret_rotated', {});
    return rotated;
  });
  return { ...presentWebhook(updated), secret: updated.secret };
}

/** The delivery log of a subscription, newest first. */
export async function listDeliveries(id: string, query: ListDeliveriesQuery, deps: Deps): Promise<Page<WebhookDelivery>> {
  await webhookOr404(id, deps);
  const page = await deps.store.webhooks.deliveries(id, { status: query.status }, { limit: query.limit, after: decodeCursor(query.cursor) });
  return { data: page.rows.map(presentDelivery), nextCursor: encodeCursor(page.next), total: page.total };
}

/**
 * Sends an event again as a new delivery (its own id and retries; the event id is the same, so receivers can tell).
 * The subscription must be on.
 */
export async function redeliver(webhookId: string, deliveryId: string, deps: Deps): Promise<WebhookDelivery> {
  const created = await deps.store.transaction(async (repos) => {
    const found = await repos.webhooks.delivery(deliveryId);
    if (!found || found.delivery.webhookId !== webhookId) throw notFound('Delivery');
    if (!found.webhook.active) throw rejected('The webhook is switched off; switch it on (PATCH active: true) before redelivering');
    const row = { id: deps.newId('whd'), webhookId, eventId: found.event.id, createdAt: deps.now(), redeliveryOf: found.delivery.id };
    await repos.webhooks.addDeliveries([row]);
    await repos.outbox.add([job('webhooks.deliver', { deliveryId: row.id })]);
    return (await repos.webhooks.delivery(row.id))!.delivery;
  });
  deps.jobs.notify();
  return presentDelivery(created);
}
