import { laneOf, type Lane } from './catalog.js';
import type { JobQueue, QueueCounts, RetryResult } from './queue.js';

type Idle = { idle?: () => Promise<void> };

/**
 * One queue port over two queues: notification and automation jobs in one, webhook deliveries in the other, so slow
 * receivers never hold up the inbox. Adding routes by job name; consuming runs both, each with its own concurrency
 * (`webhookConcurrency` for deliveries); counts add up and the failed set is the union. The relay sees one queue.
 */
export function createLaneQueue(lanes: Record<Lane, JobQueue & Idle>): JobQueue & { idle(): Promise<void> } {
  const both = [lanes.jobs, lanes.webhooks];
  return {
    kind: lanes.jobs.kind,
    durable: lanes.jobs.durable,
    async add(jobs) {
      const split: Record<Lane, typeof jobs> = { jobs: [], webhooks: [] };
      for (const j of jobs) split[laneOf(j.name)].push(j);
      await Promise.all((Object.keys(split) as Lane[]).filter((l) => split[l].length).map((l) => lanes[l].add(split[l])));
    },
    backlog: () => lanes.jobs.backlog() + lanes.webhooks.backlog(),
    consume(processor, opts) {
      const consumers = [
        lanes.jobs.consume(processor, opts),
        lanes.webhooks.consume(processor, { ...opts, concurrency: opts.webhookConcurrency ?? opts.concurrency }),
      ];
      return { close: async () => void (await Promise.all(consumers.map((c) => c.close()))) };
    },
    async counts() {
      const all = await Promise.all(both.map((q) => q.counts()));
      const sum: QueueCounts = { waiting: 0, active: 0, delayed: 0, failed: 0, completed: 0 };
      for (const c of all) for (const k of Object.keys(sum) as Array<keyof QueueCounts>) sum[k] += c[k];
      return sum;
    },
    async failed(start, end) {
      const all = (await Promise.all(both.map((q) => q.failed(0, end)))).flat();
      return all.sort((a, b) => (b.failedAt ?? 0) - (a.failedAt ?? 0)).slice(start, end + 1);
    },
    async retry(id): Promise<RetryResult> {
      const first = await lanes.jobs.retry(id);
      return first === 'not_found' ? lanes.webhooks.retry(id) : first;
    },
    ping: async () => (await Promise.all(both.map((q) => q.ping()))).every(Boolean),
    idle: async () => {
      await Promise.all(both.map((q) => q.idle?.()));
    },
    async close() {
      await Promise.all(both.map((q) => q.close()));
    },
  };
}
