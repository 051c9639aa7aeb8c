import { canSeeBoard, canSeeProject, type Actor } from '../access.js';
import type { Repos, TaskRecord } from '../ports.js';

/**
 * Tasks named by id in another object (a page's links, a meeting's agreements) that the key may see: project in the
 * key's projects and board open to the user. Two queries however many ids; invisible and missing ones are left out,
 * so an answer never reveals a task the key must not see.
 */
export async function visibleTasksById(actor: Actor, ids: Iterable<string>, repos: Repos): Promise<Map<string, TaskRecord>> {
  const wanted = [...new Set(ids)];
  if (!wanted.length) return new Map();
  const rows = (await repos.tasks.byIds(actor.workspace.id, wanted)).filter((t) => canSeeProject(actor, t.projectId));
  const projectIds = [...new Set(rows.map((t) => t.projectId))];
  const boards = projectIds.length ? await repos.boards.byProjects(actor.workspace.id, projectIds, actor.user.id) : [];
  const open = new Set(boards.filter((b) => canSeeBoard(actor, b)).map((b) => b.id));
  return new Map(rows.filter((t) => open.has(t.boardId)).map((t) => [t.id, t]));
}

/** The items with `taskIds` narrowed to the tasks the key may see. */
export async function withVisibleTaskIds<T extends { taskIds: string[] }>(actor: Actor, items: T[], repos: Repos): Promise<T[]> {
  const visible = await visibleTasksById(actor, items.flatMap((i) => i.taskIds), repos);
  return items.map((i) => ({ ...i, taskIds: i.taskIds.filter((id) => visible.has(id)) }));
}
