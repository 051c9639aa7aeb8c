import { CreateTeamInput, CreateUserInput, CreateWorkspaceInput, type Deps, people, UpdateWorkspaceInput } from '@tt/domain';
import { operatorRoute } from '../../http/operator-route.js';
import type { Routes } from '../../http/route.js';

/** Operator API: workspaces, their users and teams. */
export function peopleAdminRoutes(r: Routes, deps: Deps): void {
  const route = operatorRoute(r);
  route('post', '/workspaces', CreateWorkspaceInput, 201, (_p, b) => people.createWorkspace(b, deps));
  route('patch', '/workspaces/:id', UpdateWorkspaceInput, 200, (p, b) => people.updateWorkspace(p.id, b, deps));
  route('post', '/workspaces/:id/users', CreateUserInput, 201, (p, b) => people.createUser(p.id, b, deps));
  route('delete', '/users/:id', undefined, 204, (p) => people.deleteUser(p.id, deps));
  route('post', '/workspaces/:id/teams', CreateTeamInput, 201, (p, b) => people.createTeam(p.id, b, deps));
}
