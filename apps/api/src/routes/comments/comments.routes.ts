import { comments, Comment, CreateCommentInput, envelope, paged, PageQuery, z } from '@tt/domain';
import { actorOf, type Routes } from '../../http/route.js';

const refParam = z.strictObject({ ref: z.string().min(1).max(100).openapi({ description: 'Task id or key', example: 'WEB-12' }) });

export function commentRoutes(r: Routes): void {
  r.add({
    method: 'get', path: '/tasks/:ref/comments', tag: 'Comments', summary: 'Comments, oldest first',
    scope: 'tasks:read', params: refParam, query: z.strictObject(PageQuery), response: paged(Comment, 'CommentPage'),
    handler: ({ req, params, query, deps }) => comments.listComments(actorOf(req), params.ref, query, deps),
  });
  r.add({
    method: 'post', path: '/tasks/:ref/comments', tag: 'Comments', summary: 'Comment as the key user',
    description: 'Mentions `@login` resolve to users; the author, assignees, mentioned users and the answered comment author are notified.',
    scope: 'tasks:write', status: 201, params: refParam, body: CreateCommentInput, response: envelope(Comment, 'CommentResponse'),
    handler: async ({ req, params, body, deps }) => ({ data: await comments.addComment(actorOf(req), params.ref, body, deps) }),
  });
}
