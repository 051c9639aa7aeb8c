import { DomainError, invalid, rejected, type Repos } from '../shared/index.js';
import { type Actor, canSeeBoard, canSeeProject } from '../keys/index.js';
import type { BoardRecord, ProjectRecord, StatusRecord } from './ports.js';
import { CATEGORIES, type Category } from './schema.js';
import { withHint } from '../shared/index.js';

/**
 * Projects, boards and columns named as people and agents write them, resolved once for REST and MCP: a project by
 * key or id, a board by id, a column by id, name or category. `hint` says where the caller finds valid values (an
 * endpoint, a tool) and ends the error message. Tasks, spaces and folders resolve in their own features.
 */

const PROJECT_KEY = /^[A-Za-z][A-Za-z0-9]{0,9}$/;
const isCategory = (s: string): s is Category => (CATEGORIES as readonly string[]).includes(s);

/** A project by key (e.g. WEB, any case) or id that the key may see, else 404 naming what was sent. */
export async function projectByRef(actor: Actor, ref: string, repos: Repos, hint?: string): Promise<ProjectRecord> {
  const name = ref.trim();
  const found =
    (PROJECT_KEY.test(name) ? await repos.projects.byKey(actor.workspace.id, name.toUpperCase()) : undefined) ??
    (await repos.projects.get(actor.workspace.id, name));
  if (!found || !canSeeProject(actor, found.id)) throw new DomainError('not_found', withHint(`Project ${name} not found`, hint));
  return found;
}

/** A board by id that the key's user may see, else 404. */
export async function boardByRef(actor: Actor, ref: string, repos: Repos, hint?: string): Promise<BoardRecord> {
  const found = await repos.boards.get(actor.workspace.id, ref.trim());
  if (!found || !canSeeBoard(actor, found)) throw new DomainError('not_found', withHint(`Board ${ref} not found`, hint));
  return found;
}

/** The first board of a project open to the user: where a task goes when only the project is named. */
export async function firstBoard(actor: Actor, p: ProjectRecord, repos: Repos): Promise<BoardRecord> {
  const boards = (await repos.boards.byProjects(actor.workspace.id, [p.id], actor.user.id)).filter((b) => canSeeBoard(actor, b));
  if (!boards[0]) throw rejected(`Project ${p.key} has no board you can see`);
  return boards[0];
}

/** A column of a board by id, then name (case-insensitive), then category (the first column of it, left to right). */
export function columnByRef(b: BoardRecord, ref: string, field: string): StatusRecord {
  const want = ref.trim();
  const lower = want.toLowerCase();
  const found =
    b.statuses.find((s) => s.id === want) ??
    b.statuses.find((s) => s.name.toLowerCase() === lower) ??
    (isCategory(lower) ? b.statuses.find((s) => s.category === lower) : undefined);
  if (!found) {
    const columns = b.statuses.map((s) => `${JSON.stringify(s.name)} (${s.id}, ${s.category})`).join(', ');
    throw invalid(field, `no column ${want} on board ${b.name}; its columns are ${columns}`);
  }
  return found;
}

/** Boards a task filter may name columns of: those of one project, or of every project the key sees. */
async function visibleBoards(actor: Actor, projectId: string | undefined, repos: Repos): Promise<BoardRecord[]> {
  let ids: string[];
  if (projectId) ids = [projectId];
  else if (actor.key.projectIds) ids = actor.key.projectIds;
  else ids = (await repos.projects.list(actor.workspace.id, null, { limit: 500 })).rows.map((p) => p.id);
  if (!ids.length) return [];
  return (await repos.boards.byProjects(actor.workspace.id, ids, actor.user.id)).filter((b) => canSeeBoard(actor, b));
}

/**
 * Column filters of a task search: each reference is a category (todo, progress, done), a column id or a column
 * name (every visible column of that name matches, as boards often share names). Unknown ones are named with the
 * columns that exist.
 */
export async function statusFilter(
  actor: Actor, refs: readonly string[], projectId: string | undefined, repos: Repos, field: string,
): Promise<{ statusIds: string[]; categories: Category[] }> {
  const categories: Category[] = [];
  const names: string[] = [];
  for (const r of refs.map((x) => x.trim()).filter(Boolean)) {
    if (isCategory(r.toLowerCase())) categories.push(r.toLowerCase() as Category);
    else names.push(r);
  }
  const statusIds: string[] = [];
  if (names.length) {
    const columns = (await visibleBoards(actor, projectId, repos)).flatMap((b) => b.statuses);
    const unknown: string[] = [];
    for (const n of names) {
      const hits = columns.filter((s) => s.id === n || s.name.toLowerCase() === n.toLowerCase());
      if (hits.length) statusIds.push(...hits.map((s) => s.id));
      else unknown.push(n);
    }
    if (unknown.length) {
      const known = [...new Set(columns.map((s) => s.name))].join(', ') || 'none';
      throw invalid(field, `no column ${unknown.join(', ')}; column names: ${known}; categories: ${CATEGORIES.join(', ')}`);
    }
  }
  return { statusIds: [...new Set(statusIds)], categories: [...new Set(categories)] };
}
