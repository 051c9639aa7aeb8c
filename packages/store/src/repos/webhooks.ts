import type { Knex } from 'knex';
import type { WebhookDeliveryRecord, WebhookEventRecord, WebhookPatch, WebhookRecord, WebhookRepo } from '@tt/domain';
import { newId, numOrNull, pageNewestFirst } from '../util.js';

type Row = Record<string, any>;

const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);

const webhook = (r: Row): WebhookRecord => ({
  id: r.id, workspaceId: r.workspace_id, url: r.url, events: r.events, projectIds: r.project_ids ?? null, active: r.active,
  secret: r.secret, previousSecret: r.previous_secret ?? null, previousSecretExpiresAt: numOrNull(r.previous_secret_expires_at),
  failingSince: numOrNull(r.failing_since), disabledAt: numOrNull(r.disabled_at), disabledReason: r.disabled_reason ?? null,
  createdAt: Number(r.created_at), updatedAt: Number(r.updated_at),
});

const event = (r: Row): WebhookEventRecord => ({
  id: r.id, workspaceId: r.workspace_id, projectId: r.project_id ?? null, type: r.type, data: json(r.data), createdAt: Number(r.created_at),
});

const delivery = (r: Row): WebhookDeliveryRecord => ({
  id: r.id, webhookId: r.webhook_id, eventId: r.event_id, eventType: r.event_type, status: r.status, attempts: Number(r.attempts),
  lastStatusCode: numOrNull(r.last_status_code), lastError: r.last_error ?? null, durationMs: numOrNull(r.duration_ms),
  createdAt: Number(r.created_at), lastAttemptAt: numOrNull(r.last_attempt_at), nextAttemptAt: numOrNull(r.next_attempt_at),
  succeededAt: numOrNull(r.succeeded_at), redeliveryOf: r.redelivery_of ?? null,
});

const COLUMNS: Record<keyof WebhookPatch, string> = {
  url: 'url', events: 'events', projectIds: 'project_ids', active: 'active', secret: 'secret', previousSecret: 'previous_secret',
  previousSecretExpiresAt: 'previous_secret_expires_at', failingSince: 'failing_since', disabledAt: 'disabled_at',
  disabledReason: 'disabled_reason', updatedAt: 'updated_at',
};

/** Deliveries with the type of their event, which the log shows. */
const deliveriesWithType = (db: Knex) =>
  db('webhook_deliveries').join('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id');

export function webhookRepo(db: Knex): WebhookRepo {
  return {
    async create(w) {
      const [row] = await db('webhooks')
        .insert({
          id: newId('whk'), workspace_id: w.workspaceId, url: w.url, events: w.events, project_ids: w.projectIds, active: w.active,
          secret: w.secret, previous_secret: w.previousSecret, previous_secret_expires_at: w.previousSecretExpiresAt,
          failing_since: w.failingSince, disabled_at: w.disabledAt, disabled_reason: w.disabledReason, created_at: w.createdAt,
          updated_at: w.updatedAt,
        })
        .returning('*');
      return webhook(row);
    },
    async get(id) {
      const row = await db('webhooks').where({ id }).first();
      return row ? webhook(row) : undefined;
    },
    async list(workspaceId) {
      return (await db('webhooks').where({ workspace_id: workspaceId }).orderBy('id')).map(webhook);
    },
    async update(id, patch) {
      const set: Row = {};
      for (const [k, v] of Object.entries(patch)) if (v !== undefined) set[COLUMNS[k as keyof WebhookPatch]] = v;
      const [row] = await db('webhooks').where({ id }).update(set).returning('*');
      return row ? webhook(row) : undefined;
    },
    async delete(id) {
      // returning(): PGlite answers a bare delete with a result object, not a count.
      return (await db('webhooks').where({ id }).delete().returning('id')).length > 0;
    },
    async matching(workspaceId, type, projectId) {
      const q = db('webhooks').where({ workspace_id: workspaceId, active: true }).whereRaw('events @> array[?]::text[]', [type]);
      if (projectId === null) q.whereNull('project_ids');
      else q.where((w) => w.whereNull('project_ids').orWhereRaw('project_ids @> array[?]::text[]', [projectId]));
      return (await q.orderBy('id')).map(webhook);
    },
    async addEvent(e) {
      await db('webhook_events').insert({
        id: e.id, workspace_id: e.workspaceId, project_id: e.projectId, type: e.type, data: JSON.stringify(e.data), created_at: e.createdAt,
      });
    },
    async addDeliveries(rows) {
      if (!rows.length) return;
      await db('webhook_deliveries').insert(
        rows.map((d) => ({
          id: d.id, webhook_id: d.webhookId, event_id: d.eventId, status: 'pending', attempts: 0, created_at: d.createdAt, redelivery_of: d.redeliveryOf,
        })),
      );
    },
    async delivery(id) {
      // One after the other: inside a transaction these share one connection.
      const d = await deliveriesWithType(db).where('webhook_deliveries.id', id).first('webhook_deliveries.*', 'webhook_events.type as event_type');
      if (!d) return undefined;
      const e = await db('webhook_events').where({ id: d.event_id }).first();
      const w = await db('webhooks').where({ id: d.webhook_id }).first();
      if (!e || !w) return undefined;
      return { delivery: delivery(d), event: event(e), webhook: webhook(w) };
    },
    deliveries(webhookId, filter, page) {
      const base = db('webhook_deliveries').where('webhook_deliveries.webhook_id', webhookId);
      if (filter.status) base.where('webhook_deliveries.status', filter.status);
      return pageNewestFirst<Row, WebhookDeliveryRecord>(
        base, { column: 'webhook_deliveries.created_at', id: 'webhook_deliveries.id', value: 'epoch' }, page, delivery,
        (q) => q.join('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id').select('webhook_deliveries.*', 'webhook_events.type as event_type'),
      );
    },
    async recordAttempt(id, p, counted = true) {
      const rows = await db('webhook_deliveries')
        .where({ id })
        .whereIn('status', ['pending', 'retrying'])
        .update({
          status: p.status, attempts: counted ? db.raw('attempts + 1') : db.raw('attempts'), last_status_code: p.lastStatusCode,
          last_error: p.lastError, duration_ms: p.durationMs, last_attempt_at: p.lastAttemptAt, next_attempt_at: p.nextAttemptAt,
          succeeded_at: p.succeededAt,
        })
        .returning('id');
      return rows.length > 0;
    },
    async prune(at) {
      return (await db('webhook_events').where('created_at', '<', at).delete().returning('id')).length;
    },
  };
}
