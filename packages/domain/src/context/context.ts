import type { Deps } from '../shared/index.js';
import { docsForTask } from '../docs/index.js';
import { type Actor, hasScope, requireScope } from '../keys/index.js';
import { agreementsForTask } from '../meetings/index.js';
import { visibleTask } from '../tasks/index.js';
import { renderTaskContext } from './render.js';

export const CONTEXT_COMMENTS = 50;

/** The task with its discussion as Markdown; docs and meeting agreements only with their rights. */
export async function taskContext(actor: Actor, ref: string, deps: Deps): Promise<{ taskId: string; key: string; markdown: string }> {
  requireScope(actor, 'tasks:read');
  const repos = deps.store;
  const task = await visibleTask(actor, ref, repos);
  const [details, project, board, comments, total, docs, agreements] = await Promise.all([
    repos.tasks.details(task, actor.user.id, { position: false }),
    repos.projects.get(actor.workspace.id, task.projectId),
    repos.boards.get(actor.workspace.id, task.boardId),
    repos.comments.latest(task.id, CONTEXT_COMMENTS),
    repos.comments.list(task.id, { limit: 1 }).then((p) => p.total),
    hasScope(actor, 'docs:read') ? docsForTask(actor, task.id, repos) : undefined,
    hasScope(actor, 'meetings:read') ? agreementsForTask(actor, task.id, repos) : undefined,
  ]);
  const subtasks = await repos.tasks.byIds(actor.workspace.id, details.subtaskIds);
  const parent = task.parentId ? ((await repos.tasks.byIds(actor.workspace.id, [task.parentId]))[0] ?? null) : null;
  const userIds = new Set<string>([task.reporterId, ...task.assigneeIds, ...comments.map((c) => c.authorId)]);
  const users = new Map((await repos.users.byIds(actor.workspace.id, [...userIds])).map((u) => [u.id, u]));
  const markdown = renderTaskContext({
    task, details, projectName: project?.name ?? '', boardName: board?.name ?? '', subtasks, parent,
    comments, totalComments: total, users, timezone: actor.workspace.timezone,
    docs,
    agreements,
  });
  return { taskId: task.id, key: task.key, markdown };
}
