import type { Deps, JobSignal, Store } from '@tt/domain';
import { createBullQueue } from './bullmq-queue.js';
import { WEBHOOK_QUEUE_NAME } from './catalog.js';
import { createProcessor } from './handlers.js';
import { createLaneQueue } from './lanes.js';
import { createMemoryQueue } from './memory-queue.js';
import type { JobConsumer, JobQueue, Log, QueueCounts, WithDeadline } from './queue.js';
import { createOutboxRelay, outboxRowId, type OutboxRelay } from './relay.js';

export interface JobSystemOptions {
  store: Store;
  /** BullMQ on this Redis; unset = the in-process queue (embedded mode, one process). */
  redisUrl?: string | undefined;
  prefix?: string | undefined;
  log: Log;
  pollMs?: number | undefined;
  /**
   * The store's `withDeadline`: bounds the relay's passes and each job's try on the client side, so a database that
   * stops answering (a partition, a proxy that forwards nothing) fails them and they retry, never hang. Unset: unbounded.
   */
  deadline?: WithDeadline | undefined;
}

export interface StartOptions {
  /** Run the handlers in this process. Always so with the in-process queue. */
  consume?: boolean | undefined;
  concurrency?: number | undefined;
  lockDurationMs?: number | undefined;
  /** Webhook deliveries handled at once by this process (default `concurrency`). */
  webhookConcurrency?: number | undefined;
  /** A job try's database deadline (default JOB_DEADLINE_MS), when `deadline` is given. */
  jobDeadlineMs?: number | undefined;
}

export interface JobStats extends QueueCounts {
  /** Outbox rows not yet handed to the queue (in-process: not yet handled). */
  outboxPending: number;
}

export interface JobSystem {
  readonly queue: JobQueue;
  readonly relay: OutboxRelay;
  /** The use cases' JobSignal: wakes the relay after a commit. */
  readonly signal: JobSignal;
  /** Starts the relay, and the handlers when this process consumes. */
  start(deps: Deps, opts?: StartOptions): void;
  readonly consuming: boolean;
  stats(): Promise<JobStats>;
  /** In-process queue: relays and handles until nothing is left (for tests and scripts). */
  drain(): Promise<void>;
  /** Stops taking jobs and waits for those in hand (a worker's shutdown); the relay keeps running. */
  stopConsuming(): Promise<void>;
  /** Stops taking jobs (finishing those in hand), then the relay, then the queue. */
  close(): Promise<void>;
}

/** The outbox relay and the queue (BullMQ or in-process) of one process. */
export function createJobSystem(o: JobSystemOptions): JobSystem {
  const log = o.log.child({ component: 'jobs' });
  const memoryLane = () =>
    createMemoryQueue({
      log,
      // The outbox row is done only when its job is: a crash before that runs the job again at the next start.
      onSettled: async (job) => {
        const row = outboxRowId(job.id);
        if (row !== undefined) await o.store.outbox.markRelayed([row], Date.now());
      },
    });
  // Two lanes (see lanes.ts): webhook deliveries apart from the other jobs.
  const memory = o.redisUrl ? undefined : createLaneQueue({ jobs: memoryLane(), webhooks: memoryLane() });
  const queue: JobQueue =
    memory ??
    createLaneQueue({
      jobs: createBullQueue({ redisUrl: o.redisUrl!, prefix: o.prefix, log }),
      webhooks: createBullQueue({ redisUrl: o.redisUrl!, prefix: o.prefix, name: WEBHOOK_QUEUE_NAME, log }),
    });
  const relay = createOutboxRelay({ store: o.store, queue, log, pollMs: o.pollMs, deadline: o.deadline });
  let consumer: JobConsumer | undefined;

  return {
    queue,
    relay,
    signal: { notify: () => relay.notify() },
    get consuming() {
      return consumer !== undefined;
    },
    start(deps, opts = {}) {
      if ((opts.consume || memory) && !consumer) {
        consumer = queue.consume(createProcessor(deps, log, { deadline: o.deadline, deadlineMs: opts.jobDeadlineMs }), {
          concurrency: opts.concurrency ?? 4, lockDurationMs: opts.lockDurationMs, webhookConcurrency: opts.webhookConcurrency,
        });
      }
      relay.start();
    },
    async stats() {
      const [counts, outboxPending] = await Promise.all([queue.counts(), o.store.outbox.pending()]);
      return { ...counts, outboxPending };
    },
    async drain() {
      if (!memory) throw new Error('drain() is for the in-process queue');
      // Until every outbox row is handled: jobs may queue more jobs (an automation's comment notifies).
      for (;;) {
        await relay.relayOnce();
        await memory.idle();
        if ((await o.store.outbox.pending()) === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    async stopConsuming() {
      const c = consumer;
      consumer = undefined;
      await c?.close();
    },
    async close() {
      await this.stopConsuming();
      await relay.stop();
      await queue.close();
    },
  };
}
