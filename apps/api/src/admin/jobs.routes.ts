import { DomainError, Id, notFound, z, type Deps } from '@tt/domain';
import type { JobSystem } from '@tt/jobs';
import type { Routes } from '../http/route.js';

const byId = z.strictObject({ id: Id });

/** Operator API of the worker's queue: its depth, the failed jobs and their retry. */
export function jobAdminRoutes(r: Routes, deps: Deps, jobs: JobSystem | undefined): void {
  const queue = () => {
    if (!jobs) throw new DomainError('rejected', 'This process has no job queue');
    return jobs.queue;
  };
  // While Redis is down the outbox keeps the jobs; the operator hears that, not an internal error.
  const reachable = <T>(p: Promise<T>): Promise<T> =>
    p.catch((err: Error) => {
      throw new DomainError('rejected', `The job queue is unreachable (${err.message}); jobs wait in the outbox`);
    });
  r.add({
    method: 'get', path: '/jobs/stats', tag: 'Operator', summary: 'Queue depth, failed count and pending outbox rows',
    handler: async () => {
      const q = queue();
      const outboxPending = await deps.store.outbox.pending();
      const counts = await q.counts().catch(() => undefined);
      return { data: counts ? { queueReachable: true, ...counts, outboxPending } : { queueReachable: false, outboxPending } };
    },
  });
  r.add({
    method: 'get', path: '/jobs/failed', tag: 'Operator', summary: 'Jobs that used up their retries, newest first',
    query: z.strictObject({ limit: z.coerce.number().int('must be an integer').min(1, 'must be at least 1').max(1000, 'must be at most 1000').default(100) }),
    handler: async ({ query }) => ({ data: await reachable(queue().failed(0, query.limit - 1)) }),
  });
  r.add({
    method: 'post', path: '/jobs/:id/retry', tag: 'Operator', summary: 'Run a failed job again', params: byId,
    handler: async ({ params }) => {
      const result = await reachable(queue().retry(params.id));
      if (result === 'not_found') throw notFound('Job');
      if (result === 'not_failed') throw new DomainError('rejected', `Job ${params.id} is not in the failed set`);
      return { data: { id: params.id, retried: true } };
    },
  });
}
