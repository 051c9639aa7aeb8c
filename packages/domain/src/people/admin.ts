import { type Deps, DomainError, invalid, notFound } from '../shared/index.js';
import { presentTeam, presentUser, presentWorkspace } from './present.js';
import type {
  CreateTeamInput, CreateUserInput, CreateWorkspaceInput, Team, UpdateWorkspaceInput, User, Workspace,
} from './schema.js';

async function workspaceOr404(id: string, deps: Deps) {
  const ws = await deps.store.workspaces.get(id);
  if (!ws) throw notFound('Workspace');
  return ws;
}

export async function createWorkspace(input: CreateWorkspaceInput, deps: Deps): Promise<Workspace> {
  return presentWorkspace(await deps.store.workspaces.create({ ...input, memberKeysEnabled: true }));
}

export async function updateWorkspace(id: string, input: UpdateWorkspaceInput, deps: Deps): Promise<Workspace> {
  await workspaceOr404(id, deps);
  const updated = presentWorkspace((await deps.store.workspaces.update(id, input))!);
  // Turning member keys off (or a plan without the API) stops keys: open streams re-check theirs.
  deps.store.changes.note({ kind: 'access' });
  return updated;
}

export async function createUser(workspaceId: string, input: CreateUserInput, deps: Deps): Promise<User> {
  await workspaceOr404(workspaceId, deps);
  const [existing] = await deps.store.users.byLogins(workspaceId, [input.login]);
  if (existing) throw new DomainError('rejected', `Login ${input.login} is taken`);
  return presentUser(await deps.store.users.create({ workspaceId, ...input }));
}

export async function deleteUser(id: string, deps: Deps): Promise<void> {
  if (!(await deps.store.users.softDelete(id, deps.now()))) throw notFound('User');
  deps.store.changes.note({ kind: 'access', userId: id });
}

export async function createTeam(workspaceId: string, input: CreateTeamInput, deps: Deps): Promise<Team> {
  await workspaceOr404(workspaceId, deps);
  const ids = [...new Set([...input.memberIds, ...(input.leadId ? [input.leadId] : [])])];
  const found = await deps.store.users.byIds(workspaceId, ids);
  const missing = ids.filter((id) => !found.some((u) => u.id === id));
  if (missing.length) throw invalid('memberIds', `unknown user ${missing.join(', ')}`);
  return presentTeam(
    await deps.store.teams.create({
      workspaceId, name: input.name, description: input.description, leadId: input.leadId ?? null, memberIds: [...new Set(input.memberIds)],
    }),
  );
}
