import type { Deps } from '../shared/index.js';
import { type Actor, canSeeBoard, hasScope } from '../keys/index.js';

/** At most this many values in one completion answer (the MCP limit). */
export const COMPLETION_LIMIT = 100;

/** The store's side of task-key completion: keys by number ranges within a project's boards, newest first. */
export interface TaskKeyRepo {
  /**
   * Keys of active tasks of `projectId` (on `boardIds`; null = every board of it) whose number lies in one of
   * `ranges` (inclusive), highest number first, at most `limit`: an index range scan on (project_id, number),
   * whatever the project's size.
   */
  byNumbers(projectId: string, boardIds: string[] | null, ranges: Array<[number, number]>, limit: number): Promise<string[]>;
}

declare module '../shared/store.js' {
  interface Repos {
    taskKeys: TaskKeyRepo;
  }
}

const MAX_NUMBER = 999_999_999;

/**
 * The numbers that start with `digits`, as ranges: "12" is 12, 120-129, 1200-1299 and so on up to nine digits.
 * Empty digits: every number.
 */
export function numberRanges(digits: string): Array<[number, number]> {
  if (digits === '') return [[1, MAX_NUMBER]];
  if (!/^\d{1,9}$/.test(digits) || /^0/.test(digits)) return [];
  const ranges: Array<[number, number]> = [];
  const base = Number(digits);
  for (let scale = 1; base * scale <= MAX_NUMBER; scale *= 10) ranges.push([base * scale, Math.min((base + 1) * scale - 1, MAX_NUMBER)]);
  return ranges;
}

/**
 * Task keys the key may see that start with `prefix` (any case): "WEB-1" offers WEB-1, WEB-10..19, WEB-100.. of the
 * visible boards, newest first; "WE" offers the newest tasks of the projects whose key starts with WE. Archived tasks
 * are left out. A key without tasks:read gets nothing.
 */
export async function completeTaskKeys(actor: Actor, prefix: string, deps: Deps): Promise<string[]> {
  if (!hasScope(actor, 'tasks:read')) return [];
  const p = prefix.trim().toUpperCase();
  const m = /^([A-Z][A-Z0-9]{0,9})(?:-(\d*))?$/.exec(p);
  if (p !== '' && !m) return [];
  const projectPart = m?.[1] ?? '';
  const exact = m?.[2] !== undefined;
  const ranges = numberRanges(m?.[2] ?? '');
  if (!ranges.length) return [];
  const projects = (await deps.store.projects.list(actor.workspace.id, actor.key.projectIds, { limit: 500 })).rows
    .filter((pr) => (exact ? pr.key === projectPart : pr.key.startsWith(projectPart)))
    .slice(0, 10);
  if (!projects.length) return [];
  const boards = await deps.store.boards.byProjects(actor.workspace.id, projects.map((pr) => pr.id), actor.user.id);
  const out: string[] = [];
  for (const project of projects) {
    const seen = boards.filter((b) => b.projectId === project.id && canSeeBoard(actor, b)).map((b) => b.id);
    if (!seen.length) continue;
    // Every board of the project visible (the usual case): no board filter, so the number ranges alone drive the
    // index scan. byProjects lists only the boards the user may see, so the project's own count decides.
    const boardIds = seen.length === (await deps.store.boards.countInProject(project.id)) ? null : seen;
    out.push(...(await deps.store.taskKeys.byNumbers(project.id, boardIds, ranges, COMPLETION_LIMIT - out.length)));
    if (out.length >= COMPLETION_LIMIT) break;
  }
  return out;
}
