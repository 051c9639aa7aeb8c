import {
  decodeCursor, type Deps, encodeCursor, invalid, job, mentionedLogins, missingRef, type Page, recordActivity, textMarker,
} from '../shared/index.js';
import { type Actor, requireScope } from '../keys/index.js';
import { activityTask, assertActive, findVisibleTask, taskRefOf, visibleTask } from '../tasks/index.js';
import { recordEvent } from '../webhooks/index.js';
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

/** Writes a comment as the actor; mentions resolve to users; notifications are queued with the commit. */
export async function addComment(actor: Actor, ref: string, input: CreateCommentInput, deps: Deps): Promise<Comment> {
  requireScope(actor, 'tasks:write');
  const comment = await deps.store.transaction(async (repos) => {
    const task = await visibleTask(actor, ref, repos);
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
    const created = await repos.comments.insert({
      workspaceId: actor.workspace.id,
      taskId: task.id,
      authorId: actor.user.id,
      text: input.text.replace(/\r\n/g, '\n'),
      replyTo: input.replyTo ?? null,
      mentionIds: mentioned.filter((u) => u.deletedAt === null).map((u) => u.id),
      createdAt: deps.now(),
    });
    await repos.tasks.update(task.id, { updatedAt: created.createdAt });
    await repos.outbox.add([
      job('notify.comment', { workspaceId: actor.workspace.id, taskId: task.id, commentId: created.id, actorId: actor.user.id }),
    ]);
    await recordActivity(repos, deps, actor, task.workspaceId, activityTask(task), 'comment.created', [
      { field: 'comment', from: null, to: { id: created.id, replyTo: created.replyTo, text: textMarker(created.text) } },
    ]);
    await recordEvent(repos, deps, {
      workspaceId: task.workspaceId, projectId: task.projectId, type: 'comment.created', subject: { task },
      data: () => ({ actorId: actor.user.id, comment: presentComment(created), task: taskRefOf(task) }),
    });
    return created;
  });
  deps.jobs.notify();
  return presentComment(comment);
}
