import type { Deps } from '../deps.js';
import { DomainError, invalid, notFound } from '../errors.js';
import { presentAttachment, presentBoard, presentKey, presentTeam, presentUser, presentWorkspace } from '../presenters.js';
import type { ApiKey, Team, User, Workspace } from '../schemas/company.js';
import type { Board } from '../schemas/project.js';
import type { Attachment, Task } from '../schemas/task.js';
import type {
  AttachmentInput, BoardAccessInput, CreateTeamInput, CreateUserInput, CreateWorkspaceInput, IssueKeyInput, UpdateKeyInput,
  UpdateWorkspaceInput,
} from '../schemas/admin.js';
import { hashToken, newToken } from './auth.js';
import { assertActive, presentFullTask } from './tasks.js';
import { taskEvent } from './webhook-events.js';

const DAY = 86_400_000;
/** Key lifetime bounds: 30 days to a year ahead (a minute of slack for clocks and round trips). */
export const KEY_MIN_LIFETIME = 30 * DAY - 60_000;
export const KEY_MAX_LIFETIME = 366 * DAY;

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
  return presentWorkspace((await deps.store.workspaces.update(id, input))!);
}

export async function createUser(workspaceId: string, input: CreateUserInput, deps: Deps): Promise<User> {
  await workspaceOr404(workspaceId, deps);
  const [existing] = await deps.store.users.byLogins(workspaceId, [input.login]);
  if (existing) throw new DomainError('rejected', `Login ${input.login} is taken`);
  return presentUser(await deps.store.users.create({ workspaceId, ...input }));
}

export async function deleteUser(id: string, deps: Deps): Promise<void> {
  if (!(await deps.store.users.softDelete(id, deps.now()))) throw notFound('User');
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

/** Issues a key for a user; the token is returned only here and stored as a hash. */
export async function issueKey(userId: string, input: IssueKeyInput, deps: Deps): Promise<ApiKey & { token: string }> {
  const user = await deps.store.users.getAny(userId);
  if (!user || user.deletedAt !== null) throw notFound('User');
  const now = deps.now();
  if (input.expiresAt !== null && (input.expiresAt < now + KEY_MIN_LIFETIME || input.expiresAt > now + KEY_MAX_LIFETIME)) {
    throw invalid('expiresAt', 'must be null (unlimited) or from 30 days to one year ahead');
  }
  if (input.projectIds) {
    for (const pid of input.projectIds) {
      if (!(await deps.store.projects.get(user.workspaceId, pid))) throw invalid('projectIds', `unknown project ${pid}`);
    }
  }
  const token = newToken();
  const key = await deps.store.keys.create({
    workspaceId: user.workspaceId, userId: user.id, scopes: [...new Set(input.scopes)], projectIds: input.projectIds,
    expiresAt: input.expiresAt, allowedIps: input.allowedIps, tokenHash: hashToken(token),
  });
  return { ...presentKey(key), token };
}

export async function updateKey(id: string, input: UpdateKeyInput, deps: Deps): Promise<ApiKey> {
  const key = await deps.store.keys.get(id);
  if (!key || key.revokedAt !== null) throw notFound('Key');
  return presentKey((await deps.store.keys.update(id, { expiresAt: input.expiresAt }))!);
}

export async function revokeKey(id: string, deps: Deps): Promise<void> {
  if (!(await deps.store.keys.revoke(id, deps.now()))) throw notFound('Key');
}

export async function setBoardAccess(boardId: string, input: BoardAccessInput, deps: Deps): Promise<Board & { memberIds: string[] | null }> {
  const board = await deps.store.boards.get(null, boardId);
  if (!board) throw notFound('Board');
  if (input.memberIds) {
    const ids = [...new Set(input.memberIds)];
    const found = await deps.store.users.byIds(board.workspaceId, ids);
    const missing = ids.filter((id) => !found.some((u) => u.id === id));
    if (missing.length) throw invalid('memberIds', `unknown user ${missing.join(', ')}`);
  }
  await deps.store.transaction(async (repos) => {
    await repos.boards.setMembers(board.id, input.memberIds ? [...new Set(input.memberIds)] : null);
    await repos.versions.bump('project', [board.projectId]); // which boards GET /projects/{id} shows may change
  });
  return { ...presentBoard(board), memberIds: input.memberIds };
}

export async function addAttachment(taskId: string, input: AttachmentInput, deps: Deps): Promise<Attachment> {
  return deps.store.transaction(async (repos) => {
    const task = await repos.tasks.getAny(taskId);
    if (!task) throw notFound('Task');
    assertActive(task);
    const att = await repos.attachments.insert({ taskId: task.id, ...input });
    await repos.tasks.update(task.id, { updatedAt: deps.now() });
    return presentAttachment(att);
  });
}

export async function archiveTask(taskId: string, archived: boolean, deps: Deps): Promise<Task> {
  const result = await deps.store.transaction(async (repos) => {
    const task = await repos.tasks.getAny(taskId);
    if (!task) throw notFound('Task');
    const now = deps.now();
    await repos.tasks.update(task.id, { archivedAt: archived ? (task.archivedAt ?? now) : null, updatedAt: now });
    const after = (await repos.tasks.getAny(task.id))!;
    // Only a real change is an event: archiving an archived task sends nothing.
    if ((task.archivedAt !== null) !== archived) await taskEvent(repos, deps, archived ? 'task.archived' : 'task.restored', null, after);
    return presentFullTask(null, after, repos);
  });
  deps.jobs.notify();
  return result;
}
