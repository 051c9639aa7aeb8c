import { type Deps, DomainError, invalid, notFound, recordAudit } from '../shared/index.js';
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
  return deps.store.transaction(async (store) => {
    const ws = presentWorkspace(await store.workspaces.create({ ...input, memberKeysEnabled: true }));
    await recordAudit(store, deps, null, { workspaceId: ws.id, action: 'workspace.created', targetType: 'workspace', targetId: ws.id, details: { ...ws } });
    return ws;
  });
}

export async function updateWorkspace(id: string, input: UpdateWorkspaceInput, deps: Deps): Promise<Workspace> {
  const before = presentWorkspace(await workspaceOr404(id, deps));
  const updated = await deps.store.transaction(async (store) => {
    const after = presentWorkspace((await store.workspaces.update(id, input))!);
    const changes = (Object.keys(after) as Array<keyof Workspace>)
      .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
      .map((field) => ({ field, from: before[field], to: after[field] }));
    if (changes.length) await recordAudit(store, deps, null, { workspaceId: id, action: 'workspace.changed', targetType: 'workspace', targetId: id, details: { changes } });
    return after;
  });
  // Turning member keys off (or a plan without the API) stops keys: open streams re-check theirs.
  deps.store.changes.note({ kind: 'access' });
  return updated;
}

export async function createUser(workspaceId: string, input: CreateUserInput, deps: Deps): Promise<User> {
  await workspaceOr404(workspaceId, deps);
  const [existing] = await deps.store.users.byLogins(workspaceId, [input.login]);
  if (existing) throw new DomainError('rejected', `Login ${input.login} is taken`);
  return deps.store.transaction(async (store) => {
    const user = presentUser(await store.users.create({ workspaceId, ...input }));
    await recordAudit(store, deps, null, { workspaceId, action: 'user.added', targetType: 'user', targetId: user.id, details: { login: user.login, name: user.name, isAdmin: user.isAdmin } });
    return user;
  });
}

export async function deleteUser(id: string, deps: Deps): Promise<void> {
  await deps.store.transaction(async (store) => {
    const user = await store.users.getAny(id);
    if (!user || !(await store.users.softDelete(id, deps.now()))) throw notFound('User');
    await recordAudit(store, deps, null, { workspaceId: user.workspaceId, action: 'user.removed', targetType: 'user', targetId: id, details: { login: user.login } });
  });
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
