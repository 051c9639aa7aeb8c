import { context, envelope, TaskContext, z } from '@tt/domain';
import { actorOf, type Routes } from '../../http/route.js';

const refParam = z.strictObject({ ref: z.string().min(1).max(100).openapi({ description: 'Task id or key', example: 'WEB-12' }) });

/** A task's context page: the task with its discussion, linked pages and agreements, for agents. */
export function contextRoutes(r: Routes): void {
  r.add({
    method: 'get', path: '/tasks/:ref/context', tag: 'Tasks', summary: 'The task with its discussion, as Markdown',
    description: 'Markdown by default; `format=json` wraps it. Linked documents need `docs:read`, meeting agreements `meetings:read`.',
    scope: 'tasks:read', params: refParam,
    query: z.strictObject({ format: z.enum(['markdown', 'json']).default('markdown') }),
    response: envelope(TaskContext, 'TaskContextResponse'),
    alternates: { 'text/markdown': 'Markdown' },
    handler: async ({ req, res, params, query, deps }) => {
      const ctx = await context.taskContext(actorOf(req), params.ref, deps);
      if (query.format === 'json') return { data: ctx };
      res.status(200).type('text/markdown; charset=utf-8').send(ctx.markdown);
      return undefined;
    },
  });
}
