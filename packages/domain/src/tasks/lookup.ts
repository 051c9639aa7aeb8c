import { DomainError, notFound, type Repos, withHint } from '../shared/index.js';
import { type Actor, canSeeBoard, canSeeProject } from '../keys/index.js';
import { visibleBoardIds } from '../projects/index.js';
import type { TaskRecord, TaskView } from './ports.js';

export const TASK_KEY = /^([A-Za-z][A-Za-z0-9]{0,9})-(\d{1,9})$/;
/** How the store looks a task up by a reference: a key (WEB-12, any case) or an id. */
export const taskRef = (ref: string): { id?: string; key?: string } => (TASK_KEY.test(ref) ? { key: ref.toUpperCase() } : { id: ref });
/** A task by id or key that the actor may see (its project and board visible), or 404. */
export async function visibleTask(actor: Actor, ref: string, repos: Repos): Promise<TaskRecord> {
  return seen(actor, await repos.tasks.view(actor.workspace.id, taskRef(ref))).task;
}

/** The view when the actor may see the task (its project and board), else 404. */
export function seen<V extends TaskView>(actor: Actor, view: V | undefined): V {
  if (!view || !canSeeBoard(actor, { projectId: view.task.projectId, memberIds: view.boardMemberIds })) throw notFound('Task');
  return view;
}

/** A task by id or key that the actor may see, or undefined. */
export async function findVisibleTask(actor: Actor, ref: string, repos: Repos): Promise<TaskRecord | undefined> {
  try {
    return await visibleTask(actor, ref, repos);
  } catch (e) {
    if (e instanceof DomainError && e.code === 'not_found') return undefined;
    throw e;
  }
}

/** A task named in a list filter (id or key): its id when the actor may see it, else an id that matches nothing. */
export async function filterTaskId(actor: Actor, ref: string, repos: Repos): Promise<string> {
  return (await findVisibleTask(actor, ref, repos))?.id ?? `missing:${ref}`;
}

/** A task by key (WEB-12) or id that the key may see, else 404 naming the reference. */
export async function taskByRef(actor: Actor, ref: string, repos: Repos, hint?: string): Promise<TaskRecord> {
  const found = await findVisibleTask(actor, ref.trim(), repos);
  if (!found) throw new DomainError('not_found', withHint(`Task ${ref.trim()} not found`, hint));
  return found;
}

/**
 * Tasks named by id in another object (a page's links, a meeting's agreements) that the key may see: project in the
 * key's projects and board open to the user. Two queries however many ids; invisible and missing ones are left out,
 * so an answer never reveals a task the key must not see.
 */
export async function visibleTasksById(actor: Actor, ids: Iterable<string>, repos: Repos): Promise<Map<string, TaskRecord>> {
  const wanted = [...new Set(ids)];
  if (!wanted.length) return new Map();
  const rows = (await repos.tasks.byIds(actor.workspace.id, wanted)).filter((t) => canSeeProject(actor, t.projectId));
  const open = await visibleBoardIds(actor, rows.map((t) => t.projectId), repos);
  return new Map(rows.filter((t) => open.has(t.boardId)).map((t) => [t.id, t]));
}

/** The items with `taskIds` narrowed to the tasks the key may see. */
export async function withVisibleTaskIds<T extends { taskIds: string[] }>(actor: Actor, items: T[], repos: Repos): Promise<T[]> {
  const visible = await visibleTasksById(actor, items.flatMap((i) => i.taskIds), repos);
  return items.map((i) => ({ ...i, taskIds: i.taskIds.filter((id) => visible.has(id)) }));
}
