import { z } from 'zod';
import { comments, CreateCommentInput } from '@tt/domain';
import { done } from '../answer/answer.js';
import { resolveTask } from '../resolve.js';
import { loginsById } from '../answer/render.js';
import { defineTool, validate } from '../tool.js';
import { plain } from '../answer/untrusted.js';
import { taskRef, WRITE } from './tasks-write.js';

export const addComment = defineTool({
  name: 'add_comment',
  title: 'Add comment',
  scope: 'tasks:write',
  toolset: 'tasks',
  description: 'Comments on a task: the place for your results and questions; @login notifies.',
  input: z.strictObject({
    task: taskRef,
    text: CreateCommentInput.shape.text.describe('Plain text'),
    replyTo: z.string().min(1).max(100).optional().describe('Comment id answered'),
  }),
  output: z.object({ id: z.string(), taskId: z.string(), taskKey: z.string(), mentioned: z.array(z.string()) }),
  annotations: WRITE,
  async run(args, { actor, deps }) {
    const input = validate(CreateCommentInput, { text: args.text, replyTo: args.replyTo });
    const task = await resolveTask(actor, args.task, deps);
    const comment = await comments.addComment(actor, task.id, input, deps);
    const logins = await loginsById(actor.workspace.id, comment.mentionIds, deps);
    const mentioned = comment.mentionIds.flatMap((id) => logins.get(id) ?? []);
    const lines = [`Comment ${comment.id} added to ${task.key} as @${plain(actor.user.login)}${comment.replyTo ? `, in reply to ${comment.replyTo}` : ''}.`];
    if (mentioned.length) lines.push(`Mentioned (notified): ${mentioned.map((l) => `@${plain(l)}`).join(', ')}.`);
    return done(lines.join('\n'), { id: comment.id, taskId: task.id, taskKey: task.key, mentioned });
  },
});
