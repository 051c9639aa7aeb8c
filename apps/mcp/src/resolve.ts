import {
  canSeeProject, DomainError, invalid, projects, tasks, type Actor, type BoardRecord, type Category, type Deps, type ProjectRecord,
  type StatusRecord, type TaskRecord, type UserRecord,
} from '@tt/domain';

/** Names an agent may use for objects (key or id, login or `me`) turned into records via the store and use cases. */

const PROJECT_KEY = /^[A-Za-z][A-Za-z0-9]{0,9}$/;
const CATEGORIES: readonly string[] = ['todo', 'progress', 'done'];

/** A project by key (e.g. WEB) or id that the key may see. */
export async function resolveProject(actor: Actor, ref: string, deps: Deps): Promise<ProjectRecord> {
  const name = ref.trim();
  if (PROJECT_KEY.test(name)) {
    const byKey = await deps.store.projects.byKey(actor.workspace.id, name);
    if (byKey && canSeeProject(actor, byKey.id)) return byKey;
  }
  try {
    return await projects.visibleProject(actor, name, deps);
  } catch (e) {
    if (e instanceof DomainError && e.code === 'not_found') {
      throw new DomainError('not_found', `Project ${name} not found; list_projects shows project keys and ids`);
    }
    throw e;
  }
}

/** A board by id that the key's user may see. */
export async function resolveBoard(actor: Actor, ref: string, deps: Deps): Promise<BoardRecord> {
  try {
    return await projects.visibleBoard(actor, ref.trim(), deps);
  } catch (e) {
    if (e instanceof DomainError && e.code === 'not_found') {
      throw new DomainError('not_found', `Board ${ref} not found; list_projects shows board ids`);
    }
    throw e;
  }
}

/** The first board of a project visible to the user (the one task creation uses by default). */
export async function firstBoard(actor: Actor, project: ProjectRecord, deps: Deps): Promise<BoardRecord> {
  const [board] = await deps.store.boards.byProjects(actor.workspace.id, [project.id], actor.user.id);
  if (!board) throw new DomainError('rejected', `Project ${project.key} has no board you can see`);
  return board;
}

/** A task by key (WEB-12) or id that the key may see. */
export function resolveTask(actor: Actor, ref: string, deps: Deps): Promise<TaskRecord> {
  return tasks.visibleTask(actor, ref.trim(), deps.store);
}

/**
 * Users by id, login (with or without @) or `me`, in one lookup per kind; unknown or deleted users fail with
 * the field named, so the agent can correct itself.
 */
export async function resolveUsers(actor: Actor, refs: readonly string[], deps: Deps, field: string): Promise<string[]> {
  const wanted = refs.map((r) => r.trim()).filter(Boolean);
  const names = wanted.filter((r) => r.toLowerCase() !== 'me').map((r) => r.replace(/^@/, ''));
  const [byId, byLogin] = await Promise.all([
    deps.store.users.byIds(actor.workspace.id, names),
    deps.store.users.byLogins(actor.workspace.id, names.map((n) => n.toLowerCase())),
  ]);
  const live = (u: UserRecord) => u.deletedAt === null;
  const ids = new Map<string, string>();
  for (const u of byId.filter(live)) ids.set(u.id, u.id);
  for (const u of byLogin.filter(live)) ids.set(u.login.toLowerCase(), u.id);
  const out: string[] = [];
  const missing: string[] = [];
  for (const ref of wanted) {
    if (ref.toLowerCase() === 'me') {
      out.push(actor.user.id);
      continue;
    }
    const plain = ref.replace(/^@/, '');
    const id = ids.get(plain) ?? ids.get(plain.toLowerCase());
    if (id) out.push(id);
    else missing.push(ref);
  }
  if (missing.length) throw invalid(field, `unknown user ${missing.join(', ')}; list_users shows ids and logins`);
  return [...new Set(out)];
}

export async function resolveUser(actor: Actor, ref: string, deps: Deps, field: string): Promise<string> {
  const [id] = await resolveUsers(actor, [ref], deps, field);
  if (!id) throw invalid(field, 'must name a user');
  return id;
}

/**
 * A column of a board by id, then by name (case-insensitive), then by category (`todo`, `progress`, `done`:
 * the first column of that category, left to right).
 */
export function resolveColumn(board: BoardRecord, ref: string, field: string): StatusRecord {
  const want = ref.trim();
  const lower = want.toLowerCase();
  const found =
    board.statuses.find((s) => s.id === want) ??
    board.statuses.find((s) => s.name.toLowerCase() === lower) ??
    (CATEGORIES.includes(lower) ? board.statuses.find((s) => s.category === (lower as Category)) : undefined);
  if (!found) {
    const columns = board.statuses.map((s) => `"${s.name}" (${s.id}, ${s.category})`).join(', ');
    throw invalid(field, `no column ${want} on board ${board.name}; its columns are ${columns}`);
  }
  return found;
}
