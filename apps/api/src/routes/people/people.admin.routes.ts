import { admin, CreateTeamInput, CreateUserInput, CreateWorkspaceInput, UpdateWorkspaceInput, type Deps } from '@tt/domain';
import { operatorRoute } from '../../http/operator-route.js';
import type { Routes } from '../../http/route.js';

/** Operator API: workspaces, their users and teams. */
export function peopleAdminRoutes(r: Routes, deps: Deps): void {
  const route = operatorRoute(r);
  route('post', '/workspaces', CreateWorkspaceInput, 201, (_p, b) => admin.createWorkspace(b, deps));
  route('patch', '/workspaces/:id', UpdateWorkspaceInput, 200, (p, b) => admin.updateWorkspace(p.id, b, deps));
  route('post', '/workspaces/:id/users', CreateUserInput, 201, (p, b) => admin.createUser(p.id, b, deps));
  route('delete', '/users/:id', undefined, 204, (p) => admin.deleteUser(p.id, deps));
  route('post', '/workspaces/:id/teams', CreateTeamInput, 201, (p, b) => admin.createTeam(p.id, b, deps));
}
