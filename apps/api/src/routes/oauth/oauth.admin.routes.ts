import { type Deps, oauth } from '@tt/domain';
import { operatorRoute } from '../../http/operator-route.js';
import type { Routes } from '../../http/route.js';

/** Operator API: the MCP sign-ins (OAuth grants) of a user, and revoking one (its tokens stop at once). */
export function oauthAdminRoutes(r: Routes, deps: Deps): void {
  const route = operatorRoute(r);
  route('get', '/users/:id/oauth-grants', undefined, 200, (p) => oauth.listGrants(p.id, deps));
  route('delete', '/oauth-grants/:id', undefined, 204, (p) => oauth.revokeGrant(p.id, deps));
}
