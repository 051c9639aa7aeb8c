import type { Knex } from 'knex';
import type { WebhookDeliveryRecord, WebhookEventRecord, WebhookRecord, WebhookRepo } from '@tt/domain';
import { columnMap } from '../columns.js';
import { compiled } from '../compiled.js';
import { newId, numOrNull, pageNewestFirst } from '../util.js';

type Row = Record<string, any>;

const orNull = (v: unknown) => v ?? null;
const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);

const WEBHOOK = columnMap<WebhookRecord>('webhooks', {
  id: 'id', workspaceId: 'workspace_id', url: 'url', events: 'events', projectIds: { column: 'project_ids', read: orNull }, active: 'active',
  secret: 'secret', previousSecret: { column: 'previous_secret', read: orNull },
  previousSecretExpiresAt: { column: 'previous_secret_expires_at', read: numOrNull }, failingSince: { column: 'failing_since', read: numOrNull },
  disabledAt: { column: 'disabled_at', read: numOrNull }, disabledReason: { column: 'disabled_reason', read: orNull },
  createdAt: { column: 'created_at', read: Number }, updatedAt: { column: 'updated_at', read: Number },
});
const EVENT = columnMap<WebhookEventRecord>('webhook_events', {
  id: 'id', workspaceId: 'workspace_id', projectId: { column: 'project_id', read: orNull }, type: 'type',
  data: { column: 'data', read: json, write: (v) => JSON.stringify(v) }, createdAt: { column: 'created_at', read: Number },
});
/** The webhook_deliveries table; the event's type comes from the joined event (see DELIVERY_SELECT). */
const DELIVERY = columnMap<WebhookDeliveryRecord>('webhook_deliveries', {
  id: 'id', webhookId: 'webhook_id', eventId: 'event_id', eventType: { column: 'event_type', readOnly: true }, status: 'status',
  attempts: { column: 'attempts', read: Number }, lastStatusCode: { column: 'last_status_code', read: numOrNull },
  lastError: { column: 'last_error', read: orNull }, durationMs: { column: 'duration_ms', read: numOrNull },
  createdAt: { column: 'created_at', read: Number }, lastAttemptAt: { column: 'last_attempt_at', read: numOrNull },
  nextAttemptAt: { column: 'next_attempt_at', read: numOrNull }, succeededAt: { column: 'succeeded_at', read: numOrNull },
  redeliveryOf: { column: 'redelivery_of', read: orNull },
});
const DELIVERY_SELECT = [...DELIVERY.select(), 'webhook_events.type as event_type'];
const webhook = WEBHOOK.read;

/** Deliveries with the type of their event, which the log shows. */
const deliveriesWithType = (db: Knex) =>
  db('webhook_deliveries').join('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id');


// Looked up by every change that may be an event (each task create, update, comment...): compiled and prepared.
const subscribed = (db: Knex, workspaceId: string, type: string) =>
  db('webhooks').where({ workspace_id: workspaceId, active: true }).whereRaw('events @> array[?]::text[]', [type]).orderBy('id');
const matchingAnywhere = compiled((db, workspaceId: string, type: string) => subscribed(db, workspaceId, type).whereNull('project_ids'));
const matchingInProject = compiled((db, workspaceId: string, type: string, projectId: string) =>
  subscribed(db, workspaceId, type).where((w) => w.whereNull('project_ids').orWhereRaw('project_ids @> array[?]::text[]', [projectId])));

export function webhookRepo(db: Knex): WebhookRepo {
  return {
    async create(w) {
      const [row] = await db('webhooks').insert(WEBHOOK.write({ ...w, id: newId('whk') })).returning('*');
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
      const [row] = await db('webhooks').where({ id }).update(WEBHOOK.write(patch)).returning('*');
      return row ? webhook(row) : undefined;
    },
    async delete(id) {
      // returning(): PGlite answers a bare delete with a result object, not a count.
      return (await db('webhooks').where({ id }).delete().returning('id')).length > 0;
    },
    async matching(workspaceId, type, projectId) {
      const rows = projectId === null ? await matchingAnywhere(db, workspaceId, type) : await matchingInProject(db, workspaceId, type, projectId);
      return rows.map(webhook);
    },
    async addEvent(e) {
      await db('webhook_events').insert(EVENT.write(e));
    },
    async addDeliveries(rows) {
      if (!rows.length) return;
      await db('webhook_deliveries').insert(rows.map((d) => DELIVERY.write({ ...d, status: 'pending', attempts: 0 })));
    },
    async delivery(id) {
      // One after the other: inside a transaction these share one connection.
      const d = await deliveriesWithType(db).where('webhook_deliveries.id', id).first(DELIVERY_SELECT);
      if (!d) return undefined;
      const e = await db('webhook_events').where({ id: d.event_id }).first();
      const w = await db('webhooks').where({ id: d.webhook_id }).first();
      if (!e || !w) return undefined;
      return { delivery: DELIVERY.read(d), event: EVENT.read(e), webhook: webhook(w) };
    },
    deliveries(webhookId, filter, page) {
      const base = db('webhook_deliveries').where('webhook_deliveries.webhook_id', webhookId);
      if (filter.status) base.where('webhook_deliveries.status', filter.status);
      return pageNewestFirst<Row, WebhookDeliveryRecord>(
        base, { column: 'webhook_deliveries.created_at', id: 'webhook_deliveries.id', value: 'epoch' }, page, DELIVERY.read,
        (q) => q.join('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id').select(DELIVERY_SELECT),
      );
    },
    async recordAttempt(id, p, counted = true) {
      const rows = await db('webhook_deliveries')
        .where({ id })
        .whereIn('status', ['pending', 'retrying'])
        .update({ ...DELIVERY.write(p), attempts: counted ? db.raw('attempts + 1') : db.raw('attempts') })
        .returning('id');
      return rows.length > 0;
    },
    async prune(at) {
      return (await db('webhook_events').where('created_at', '<', at).delete().returning('id')).length;
    },
  };
}
