import { automations, CreateAutomationInput, Id, z, type Deps } from '@tt/domain';
import type { Routes } from '../../http/route.js';

const byId = z.strictObject({ id: Id });

/** Operator API of board automations. */
export function automationAdminRoutes(r: Routes, deps: Deps): void {
  r.add({
    method: 'post', path: '/boards/:id/automations', tag: 'Operator', summary: 'Add a board automation', status: 201, params: byId,
    body: CreateAutomationInput,
    handler: async ({ params, body }) => ({ data: await automations.createAutomation(params.id, body, deps) }),
  });
  r.add({
    method: 'get', path: '/boards/:id/automations', tag: 'Operator', summary: 'Automations of a board', params: byId,
    handler: async ({ params }) => ({ data: await automations.listAutomations(params.id, deps) }),
  });
  r.add({
    method: 'delete', path: '/automations/:id', tag: 'Operator', summary: 'Remove an automation', status: 204, params: byId,
    handler: async ({ params }) => automations.deleteAutomation(params.id, deps),
  });
}
