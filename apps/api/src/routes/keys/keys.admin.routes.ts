import { type Deps, IssueKeyInput, keys, UpdateKeyInput } from '@tt/domain';
import { operatorRoute } from '../../http/operator-route.js';
import type { Routes } from '../../http/route.js';

/** Operator API: API keys of a user (issue, change, revoke). */
export function keyAdminRoutes(r: Routes, deps: Deps): void {
  const route = operatorRoute(r);
  route('post', '/users/:id/keys', IssueKeyInput, 201, (p, b) => keys.issueKey(p.id, b, deps));
  route('patch', '/keys/:id', UpdateKeyInput, 200, (p, b) => keys.updateKey(p.id, b, deps));
  route('delete', '/keys/:id', undefined, 204, (p) => keys.revokeKey(p.id, deps));
}
