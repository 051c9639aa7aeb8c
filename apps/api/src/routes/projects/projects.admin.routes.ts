import { BoardAccessInput, type Deps, projects } from '@tt/domain';
import { operatorRoute } from '../../http/operator-route.js';
import type { Routes } from '../../http/route.js';

/** Operator API: who may open a board. */
export function projectAdminRoutes(r: Routes, deps: Deps): void {
  const route = operatorRoute(r);
  route('put', '/boards/:id/access', BoardAccessInput, 200, (p, b) => projects.setBoardAccess(p.id, b, deps));
}
