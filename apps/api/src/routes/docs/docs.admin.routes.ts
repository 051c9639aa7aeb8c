import { CreateDocSpaceInput, docs, type Deps } from '@tt/domain';
import { operatorRoute } from '../../http/operator-route.js';
import type { Routes } from '../../http/route.js';

/** Operator API: documentation spaces of a workspace. */
export function docAdminRoutes(r: Routes, deps: Deps): void {
  const route = operatorRoute(r);
  route('post', '/workspaces/:id/doc-spaces', CreateDocSpaceInput, 201, (p, b) => docs.createSpace(p.id, b, deps));
}
