import { decodeCursor, type Deps, encodeCursor, type JobPayload, notFound, type Page } from '../shared/index.js';
import type { Actor } from '../keys/index.js';
import type { NotificationEvent, NotificationFilter, NotificationRecord } from './ports.js';
import type {
  ListNotificationsQuery, MarkNotificationsReadInput, MarkReadResult, Notification, NotificationKind,
  UserNotificationsQuery,
} from './schema.js';

/** What a job handler knows besides the payload: the job's stable id and when its event happened. */
export interface JobMeta {
  jobId: string;
  occurredAt: number;
}

/** Specificity of a kind: when a person has several reasons to hear of one event, the highest wins. */
const SPECIFICITY: Record<NotificationKind, number> = { reply: 3, mention: 2, comment: 1, assigned: 1 };

/**
 * Who hears of a comment, and why: the task's author and assignees (`comment`), mentioned users (`mention`) and the
 * author of the answered comment (`reply`); one kind per person, the most specific; never the comment's author.
 */
export function commentRecipients(
  comment: { authorId: string; mentionIds: string[] },
  task: { reporterId: string; assigneeIds: string[] },
  answeredAuthorId: string | null,
): Map<string, NotificationKind> {
  const out = new Map<string, NotificationKind>();
  const put = (userId: string, kind: NotificationKind) => {
    if (userId === comment.authorId) return;
    const had = out.get(userId);
    if (!had || SPECIFICITY[kind] > SPECIFICITY[had]) out.set(userId, kind);
  };
  put(task.reporterId, 'comment');
  for (const id of task.assigneeIds) put(id, 'comment');
  for (const id of comment.mentionIds) put(id, 'mention');
  if (answeredAuthorId) put(answeredAuthorId, 'reply');
  return out;
}

/** Stores one notification per recipient; the store keeps the live members able to see the task's board. */
function deliver(recipients: Map<string, NotificationKind>, event: NotificationEvent, deps: Deps): Promise<number> {
  if (!recipients.size) return Promise.resolve(0);
  return deps.store.notifications.deliver(event, [...recipients].map(([userId, kind]) => ({ userId, kind })));
}

/**
 * Job `notify.assigned`: the users made assignees hear of it, in one statement. Idempotent: the event key is the
 * task and the job id, which a retry or a redelivery keeps, so a second run inserts nothing.
 */
export function deliverAssigned(p: JobPayload<'notify.assigned'>, meta: JobMeta, deps: Deps): Promise<number> {
  const recipients = new Map<string, NotificationKind>(p.userIds.filter((id) => id !== p.actorId).map((id) => [id, 'assigned']));
  return deliver(recipients, {
    workspaceId: p.workspaceId, taskId: p.taskId, commentId: null, actorId: p.actorId, eventKey: `assigned:${p.taskId}:${meta.jobId}`, createdAt: meta.occurredAt,
  }, deps);
}

/** Job `notify.comment`: everyone the comment concerns hears of it once. Idempotent: the event key is the comment. */
export async function deliverComment(p: JobPayload<'notify.comment'>, _meta: JobMeta, deps: Deps): Promise<number> {
  const [view, comment] = await Promise.all([deps.store.tasks.view(p.workspaceId, { id: p.taskId }), deps.store.comments.get(p.taskId, p.commentId)]);
  if (!view || !comment) return 0;
  const answered = comment.replyTo ? await deps.store.comments.get(view.task.id, comment.replyTo) : undefined;
  const recipients = commentRecipients(comment, view.task, answered?.authorId ?? null);
  return deliver(recipients, {
    workspaceId: view.task.workspaceId, taskId: view.task.id, commentId: comment.id, actorId: comment.authorId, eventKey: `comment:${comment.id}`, createdAt: comment.createdAt,
  }, deps);
}

export const presentNotification = (n: NotificationRecord): Notification => ({
  id: n.id, kind: n.kind, taskId: n.taskId, commentId: n.commentId, actorId: n.actorId, createdAt: n.createdAt, read: n.readAt !== null,
});

/** The inbox filter of a key: its user's notifications about tasks the key can see. */
const inboxOf = (actor: Actor, unread?: boolean): NotificationFilter => ({
  userId: actor.user.id, unread, visibleTo: { projectIds: actor.key.projectIds },
});

/** GET /notifications: the key user's inbox, newest first; any valid key. */
export async function listInbox(actor: Actor, query: ListNotificationsQuery, deps: Deps): Promise<Page<Notification>> {
  const page = await deps.store.notifications.list(inboxOf(actor, query.unread), { limit: query.limit, after: decodeCursor(query.cursor) });
  return { data: page.rows.map(presentNotification), nextCursor: encodeCursor(page.next), total: page.total };
}

/** POST /notifications/read: marks the listed (or all) unread notifications of the inbox read. Ids of others are ignored. */
export async function markRead(actor: Actor, input: MarkNotificationsReadInput, deps: Deps): Promise<MarkReadResult> {
  const ids = input.all ? 'all' : [...new Set(input.ids ?? [])];
  return { marked: await deps.store.notifications.markRead(inboxOf(actor), ids, deps.now()) };
}

/** Operator view of a user's notifications, newest first. */
export async function userNotifications(userId: string, query: UserNotificationsQuery, deps: Deps): Promise<Notification[]> {
  const user = await deps.store.users.getAny(userId);
  if (!user) throw notFound('User');
  const page = await deps.store.notifications.list({ userId: user.id, unread: query.unread }, { limit: query.limit });
  return page.rows.map(presentNotification);
}
