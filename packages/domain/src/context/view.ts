import { cutWhole, decodeCursor, type Deps, encodeCursor, htmlToMarkdown, missingRef } from '../shared/index.js';
import type { CommentRecord } from '../comments/index.js';
import { type Actor, hasScope, requireScope, type UserRecord } from '../keys/index.js';
import { agreementsForTask } from '../meetings/index.js';
import { type ActivityEntry, latestTaskActivity } from '../activity/index.js';
import { type TaskDetails, type TaskRecord, visibleTask, visibleTasksById } from '../tasks/index.js';

/**
 * A task in parts, for answers that must stay small (agent tools): the description in Markdown, the newest comments
 * with a cursor for older ones, linked pages as title and excerpt only, related tasks visible to the key. The caller
 * picks the parts; those not asked for are not read.
 */

export const TASK_SECTIONS = ['description', 'checklist', 'subtasks', 'comments', 'docs', 'agreements'] as const;
/** Every part a view may name: the default parts, and the history (the latest entries), read only when asked for. */
export const VIEW_SECTIONS = [...TASK_SECTIONS, 'history'] as const;
export type TaskSection = (typeof VIEW_SECTIONS)[number];
/** Entries of the history part. */
export const HISTORY_ENTRIES = 20;

export interface TaskViewOptions {
  sections: readonly TaskSection[];
  /** Newest comments per page. */
  comments: number;
  /** Cursor from a previous view: older comments. */
  commentsCursor?: string | undefined;
  /** Characters of each linked page shown. */
  excerpt: number;
}

export interface TaskParts {
  task: TaskRecord;
  details: TaskDetails;
  project: { id: string; key: string; name: string } | null;
  board: { id: string; name: string } | null;
  parent: TaskRecord | null;
  users: Map<string, UserRecord>;
  /** The workspace's time zone: the times of a text answer are in it. */
  timezone: string;
  description?: string;
  subtasks?: TaskRecord[];
  comments?: { rows: CommentRecord[]; total: number; nextCursor: string | null };
  docs?: Array<{ id: string; spaceId: string; title: string; excerpt: string; length: number }>;
  agreements?: Array<{ meetingId: string; meetingTitle: string; day: string; text: string; owner: string; due: string | null }>;
  history?: ActivityEntry[];
}

export async function taskView(actor: Actor, ref: string, o: TaskViewOptions, deps: Deps): Promise<TaskParts> {
  requireScope(actor, 'tasks:read');
  const repos = deps.store;
  const task = await visibleTask(actor, ref, repos);
  const want = new Set(o.sections);
  const [details, project, board] = await Promise.all([
    repos.tasks.details(task, actor.user.id, { position: false }),
    repos.projects.get(actor.workspace.id, task.projectId),
    repos.boards.get(actor.workspace.id, task.boardId),
  ]);
  const related = await visibleTasksById(actor, [...(task.parentId ? [task.parentId] : []), ...(want.has('subtasks') ? details.subtaskIds : [])], repos);
  const view: TaskParts = {
    task, details,
    project: project ? { id: project.id, key: project.key, name: project.name } : null,
    board: board ? { id: board.id, name: board.name } : null,
    parent: task.parentId ? (related.get(task.parentId) ?? null) : null,
    users: new Map(),
    timezone: actor.workspace.timezone,
  };
  if (want.has('description')) view.description = htmlToMarkdown(task.descriptionHtml);
  if (want.has('subtasks')) view.subtasks = details.subtaskIds.flatMap((id) => related.get(id) ?? []);
  if (want.has('comments')) {
    const page = await repos.comments.newest(task.id, { limit: o.comments, after: decodeCursor(o.commentsCursor) });
    view.comments = { rows: page.rows, total: page.total, nextCursor: encodeCursor(page.next) };
  }
  if (want.has('docs') && hasScope(actor, 'docs:read')) {
    const docs = await repos.docs.byIds(actor.workspace.id, details.docIds);
    view.docs = docs.map((d) => ({ id: d.id, spaceId: d.spaceId, title: d.title, excerpt: cutWhole(d.text, o.excerpt), length: d.text.length }));
  }
  if (want.has('agreements') && hasScope(actor, 'meetings:read')) view.agreements = await agreementsForTask(actor, task.id, repos);
  if (want.has('history')) view.history = await latestTaskActivity(actor, task.id, HISTORY_ENTRIES, deps);
  const userIds = new Set<string>([task.reporterId, ...task.assigneeIds, ...(view.comments?.rows.map((c) => c.authorId) ?? [])]);
  view.users = new Map((await repos.users.byIds(actor.workspace.id, [...userIds])).map((u) => [u.id, u]));
  return view;
}

/** One comment of a task in full, with its author: for agents reading a long comment a part at a time. */
export async function taskComment(
  actor: Actor, ref: string, commentId: string, deps: Deps,
): Promise<{ task: TaskRecord; comment: CommentRecord; author: UserRecord | undefined }> {
  requireScope(actor, 'tasks:read');
  const task = await visibleTask(actor, ref, deps.store);
  const comment = await deps.store.comments.get(task.id, commentId);
  if (!comment) throw missingRef('commentId', `comment ${commentId.slice(0, 100)} of task ${task.key}`);
  const [author] = await deps.store.users.byIds(actor.workspace.id, [comment.authorId]);
  return { task, comment, author };
}
