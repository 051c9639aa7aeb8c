import { Cursor, Id, Limit, Ts, z } from '../shared/index.js';

/** Every event a subscription may ask for. */
export const WEBHOOK_EVENTS = [
  'task.created', 'task.updated', 'task.moved', 'task.archived', 'task.restored', 'task.deleted',
  'comment.created', 'time.logged', 'doc.created', 'doc.updated',
] as const;
export const WebhookEventType = z.enum(WEBHOOK_EVENTS);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** Events of documents: pages live in doc spaces, not projects. */
export const PROJECTLESS_EVENTS: readonly WebhookEventType[] = ['doc.created', 'doc.updated'];

const url = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(2000, 'must be at most 2000 characters')
  .openapi({ description: 'http(s) URL on a public address', example: 'https://hooks.example.com/tracker' });
const events = z
  .array(WebhookEventType)
  .min(1, 'must name at least one event')
  .max(WEBHOOK_EVENTS.length)
  .transform((xs) => [...new Set(xs)]);
const projectIds = z
  .array(Id)
  .min(1, 'must name at least one project, or be null for all')
  .max(100)
  .nullable()
  .transform((xs) => (xs === null ? null : [...new Set(xs)]));

export const CreateWebhookInput = z.strictObject({ url, events, projectIds: projectIds.default(null) }).openapi('CreateWebhookInput');
export type CreateWebhookInput = z.infer<typeof CreateWebhookInput>;

export const UpdateWebhookInput = z
  .strictObject({ url: url.optional(), events: events.optional(), projectIds: projectIds.optional(), active: z.boolean().optional() })
  .openapi('UpdateWebhookInput');
export type UpdateWebhookInput = z.infer<typeof UpdateWebhookInput>;

export const Webhook = z
  .object({
    id: Id,
    workspaceId: Id,
    url: z.string(),
    events: z.array(WebhookEventType),
    projectIds: z.array(Id).nullable(),
    active: z.boolean(),
    /** Start of the current run of failed attempts; null after a success. */
    failingSince: Ts.nullable(),
    disabledAt: Ts.nullable(),
    disabledReason: z.string().nullable(),
    /** Until then the previous secret still signs too (after a rotation). */
    previousSecretExpiresAt: Ts.nullable(),
    createdAt: Ts,
    updatedAt: Ts,
  })
  .openapi('Webhook');
export type Webhook = z.infer<typeof Webhook>;

/** The answer of create and rotate-secret: the only times the secret is shown. */
export const WebhookWithSecret = Webhook.extend({ secret: z.string() }).openapi('WebhookWithSecret');
export type WebhookWithSecret = z.infer<typeof WebhookWithSecret>;

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed'] as const;
export const WebhookDeliveryStatus = z.enum(WEBHOOK_DELIVERY_STATUSES);
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatus>;

export const WebhookDelivery = z
  .object({
    id: Id.openapi({ description: 'Delivery id, the same in every attempt (header x-tracker-delivery)' }),
    webhookId: Id,
    eventId: Id,
    event: WebhookEventType,
    status: WebhookDeliveryStatus,
    attempts: z.number().int(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    /** Duration of the last attempt. */
    durationMs: z.number().int().nullable(),
    createdAt: Ts,
    lastAttemptAt: Ts.nullable(),
    nextAttemptAt: Ts.nullable(),
    succeededAt: Ts.nullable(),
    /** Set on a delivery made by the operator's redeliver: the delivery it repeats. */
    redeliveryOf: Id.nullable(),
  })
  .openapi('WebhookDelivery');
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const ListDeliveriesQuery = z.strictObject({ limit: Limit, cursor: Cursor.optional(), status: WebhookDeliveryStatus.optional() });
export type ListDeliveriesQuery = z.infer<typeof ListDeliveriesQuery>;

/** The JSON body of every delivery. */
export const WebhookEventBody = z
  .object({
    id: Id.openapi({ description: 'Event id: the same for every delivery and redelivery of the event' }),
    type: WebhookEventType,
    createdAt: Ts,
    workspaceId: Id,
    data: z.record(z.string(), z.unknown()),
  })
  .openapi('WebhookEvent');
export type WebhookEventBody = z.infer<typeof WebhookEventBody>;
