import {
  activityEntry, decodeCursor, type Deps, DomainError, encodeCursor, invalid, job, mentionedLogins, missingRef, type Page, type Repos, textMarker,
} from '../shared/index.js';
import { type Actor, requireScope } from '../keys/index.js';
import { activityTask, assertActive, findVisibleTask, seen, taskRef, type TaskRecord, taskRefOf, visibleTask } from '../tasks/index.js';
import { recordEvent, subscriptionsKnown, type WebhookRecord } from '../webhooks/index.js';
import type { CommentRecord } from './ports.js';
import { presentComment } from './present.js';
import type { Comment, CreateCommentInput } from './schema.js';

export async function listComments(
  actor: Actor,
  ref: string,
  input: { limit: number; cursor?: string | undefined },
  deps: Deps,
): Promise<Page<Comment>> {
  requireScope(actor, 'tasks:read');
  const task = await visibleTask(actor, ref, deps.store);
  const page = await deps.store.comments.list(task.id, { limit: input.limit, after: decodeCursor(input.cursor) });
  return { data: page.rows.map(presentComment), nextCursor: encodeCursor(page.next), total: page.total };
}

/**
 * Writes a comment as the actor; mentions resolve to users; notifications are queued with the commit.
 *
 * In a workspace without webhook subscriptions the comment is one statement that commits alone (see
 * `comments.append`), planned on the task as this process last had it when it has it, else on a fresh read; the
 * statement writes only if the task is still at the version planned on, else the comment is planned again. A plan on
 * the task from memory gives no refusal of its own. With subscriptions, the comment and its event are one transaction.
 */
export async function addComment(actor: Actor, ref: string, input: CreateCommentInput, deps: Deps): Promise<Comment> {
  requireScope(actor, 'tasks:write');
  for (let tries = 0; actor.webhooks === false && tries < 3; tries++) {
    const view = await deps.store.tasks.view(actor.workspace.id, taskRef(ref), tries === 0);
    const remembered = view?.kept === true;
    let plan: Awaited<ReturnType<typeof planComment>>;
    try {
      plan = await planComment(actor, seen(actor, view).task, input, deps.store, deps);
    } catch (err) {
      if (remembered && err instanceof DomainError) continue;
      throw err;
    }
    const { task, comment, jobs, entry } = plan;
    const created = await deps.store.comments.append(comment, {
      task: { id: task.id, version: task.version, ...(remembered ? { boardMemberIds: view.boardMemberIds } : {}) }, jobs, activity: entry,
    });
    if (created) {
      // No subscription takes the event (the key's read said so): recording it only tells the change feed's watchers.
      await commentEvent(deps.store, deps, actor, task, created, []);
      deps.jobs.notify();
      return presentComment(created);
    }
  }
  const comment = await deps.store.transaction(async (repos) => {
    const { task, comment, jobs, entry } = await planComment(actor, await visibleTask(actor, ref, repos), input, repos, deps);
    const created = await repos.comments.insert(comment);
    await repos.tasks.update(task.id, { updatedAt: created.createdAt });
    await repos.outbox.add(jobs);
    await repos.activity.add([entry]);
    await commentEvent(repos, deps, actor, task, created, subscriptionsKnown(actor));
    return created;
  });
  deps.jobs.notify();
  return presentComment(comment);
}

/** The comment.created event (and the change feed's note of the task), for `known` subscriptions (undefined: looked up). */
function commentEvent(
  repos: Repos, deps: Deps, actor: Actor, task: TaskRecord, created: CommentRecord, known: WebhookRecord[] | undefined,
): Promise<number> {
  return recordEvent(repos, deps, {
    workspaceId: task.workspaceId, projectId: task.projectId, type: 'comment.created', subject: { task },
    data: () => ({ actorId: actor.user.id, comment: presentComment(created), task: taskRefOf(task) }),
  }, known);
}

/** Checks a comment on `task` (the reply it answers, the people it mentions) and makes it, its job and its entry, writing nothing. */
async function planComment(actor: Actor, task: TaskRecord, input: CreateCommentInput, repos: Repos, deps: Deps) {
  assertActive(task);
  if (input.replyTo) {
    const answered = await repos.comments.get(task.id, input.replyTo);
    if (!answered) {
      // A comment of another task the key can see breaks a rule (400); one that is missing or hidden is 404.
      const elsewhere = await repos.comments.find(actor.workspace.id, input.replyTo);
      if (elsewhere && (await findVisibleTask(actor, elsewhere.taskId, repos))) {
        throw invalid('replyTo', `comment ${input.replyTo} is not a comment of task ${task.key}`);
      }
      throw missingRef('replyTo', `comment ${input.replyTo}`);
    }
  }
  const logins = mentionedLogins(input.text);
  const mentioned = logins.length ? await repos.users.byLogins(actor.workspace.id, logins) : [];
  const comment: CommentRecord = {
    id: deps.newId('cmt'),
    workspaceId: actor.workspace.id,
    taskId: task.id,
    authorId: actor.user.id,
    text: input.text.replace(/\r\n/g, '\n'),
    replyTo: input.replyTo ?? null,
    mentionIds: mentioned.filter((u) => u.deletedAt === null).map((u) => u.id),
    createdAt: deps.now(),
  };
  const jobs = [job('notify.comment', { workspaceId: actor.workspace.id, taskId: task.id, commentId: comment.id, actorId: actor.user.id })];
  const entry = activityEntry(deps, actor, task.workspaceId, activityTask(task), 'comment.created', [
    { field: 'comment', from: null, to: { id: comment.id, replyTo: comment.replyTo, text: textMarker(comment.text) } },
  ]);
  return { task, comment, jobs, entry };
}
