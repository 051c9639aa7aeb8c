import {
  CreateWebhookInput, Id, ListDeliveriesQuery, paged, UpdateWebhookInput, Webhook, WebhookDelivery, WebhookWithSecret, webhooks, z, type Deps,
} from '@tt/domain';
import type { Routes } from '../../http/route.js';

const byId = z.strictObject({ id: Id });
const delivery = z.strictObject({ id: Id, deliveryId: Id });
const data = <T extends z.ZodTypeAny>(schema: T) => z.object({ data: schema });

/** Operator API of webhooks: subscriptions of a workspace, secret rotation, the delivery log and redelivery. */
export function webhookAdminRoutes(r: Routes, deps: Deps): void {
  r.add({
    method: 'post', path: '/workspaces/:id/webhooks', tag: 'Operator', summary: 'Subscribe a URL to events (the secret is shown only here)',
    status: 201, params: byId, body: CreateWebhookInput, response: data(WebhookWithSecret),
    handler: async ({ params, body }) => ({ data: await webhooks.createWebhook(params.id, body, deps) }),
  });
  r.add({
    method: 'get', path: '/workspaces/:id/webhooks', tag: 'Operator', summary: "A workspace's webhook subscriptions", params: byId,
    response: data(z.array(Webhook)),
    handler: async ({ params }) => ({ data: await webhooks.listWebhooks(params.id, deps) }),
  });
  r.add({
    method: 'patch', path: '/webhooks/:id', tag: 'Operator', summary: 'Change url, events, projectIds or active', params: byId,
    body: UpdateWebhookInput, response: data(Webhook),
    handler: async ({ params, body }) => ({ data: await webhooks.updateWebhook(params.id, body, deps) }),
  });
  r.add({
    method: 'delete', path: '/webhooks/:id', tag: 'Operator', summary: 'Remove a subscription and its delivery log', status: 204, params: byId,
    handler: async ({ params }) => webhooks.deleteWebhook(params.id, deps),
  });
  r.add({
    method: 'post', path: '/webhooks/:id/rotate-secret', tag: 'Operator', summary: 'New signing secret; the old one signs too for 24 hours',
    params: byId, response: data(WebhookWithSecret),
    handler: async ({ params }) => ({ data: await webhooks.rotateSecret(params.id, deps) }),
  });
  r.add({
    method: 'get', path: '/webhooks/:id/deliveries', tag: 'Operator', summary: 'Delivery log, newest first', params: byId,
    query: ListDeliveriesQuery, response: paged(WebhookDelivery, 'WebhookDeliveryPage'),
    handler: async ({ params, query }) => webhooks.listDeliveries(params.id, query, deps),
  });
  r.add({
    method: 'post', path: '/webhooks/:id/deliveries/:deliveryId/redeliver', tag: 'Operator',
    summary: 'Send the event again as a new delivery', status: 201, params: delivery, response: data(WebhookDelivery),
    handler: async ({ params }) => ({ data: await webhooks.redeliver(params.id, params.deliveryId, deps) }),
  });
}
