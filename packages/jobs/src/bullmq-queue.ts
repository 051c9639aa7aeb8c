import { Queue, Worker, type Job, type MinimalJob } from 'bullmq';
import { Redis } from 'ioredis';
import { DEFAULT_PREFIX, handlerBackoff, QUEUE_NAME, retryOf } from './catalog.js';
import type { FailedJob, JobQueue, Log, QueueCounts, RetryResult } from './queue.js';
import { redisRetryStrategy } from './redis-retry.js';

export interface BullQueueOptions {
  redisUrl: string;
  /** Key prefix; processes that share a queue use the same one. */
  prefix?: string | undefined;
  /** Queue name under the prefix (default `jobs`; webhook deliveries use `webhooks`). */
  name?: string | undefined;
  log: Log;
  /** A producer command (add, counts, failed, retry) Redis has not answered by then fails (default 5000 ms). */
  commandTimeoutMs?: number | undefined;
  /** A connection that receives nothing this long while commands wait is closed and reopened (default 30 s). */
  socketTimeoutMs?: number | undefined;
}

const DAY_S = 86_400;
/**
 * Producer commands fail after this on a Redis that stays connected but does not answer: the relay's add rolls back
 * (the rows stay in the outbox), and the operator API's and /metrics' queue reads answer instead of hanging.
 */
export const QUEUE_COMMAND_TIMEOUT_MS = 5000;
/**
 * A Redis connection on which nothing has come back for this long while commands wait is given up (ioredis
 * socketTimeout) and reopened: a peer that vanished without a reset (a partition, a failover to another address)
 * would otherwise hold it until TCP gives up, about 15 minutes, and a command timeout alone fails each command but
 * keeps the dead connection. Above BullMQ's longest blocking wait for a job (10 s), so an idle worker is not cut.
 */
export const QUEUE_SOCKET_TIMEOUT_MS = 30_000;

/**
 * The queue on Redis through BullMQ. Adding is idempotent by job id (BullMQ ignores an id it holds), so an outbox
 * row relayed twice after a crash still makes one job. Producers fail fast while Redis is down: the outbox keeps the
 * jobs and the relay tries again.
 */
export function createBullQueue(o: BullQueueOptions): JobQueue {
  const prefix = o.prefix ?? DEFAULT_PREFIX;
  const socketTimeout = o.socketTimeoutMs ?? QUEUE_SOCKET_TIMEOUT_MS;
  const producer = new Redis(o.redisUrl, {
    maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: o.commandTimeoutMs ?? QUEUE_COMMAND_TIMEOUT_MS, socketTimeout,
    retryStrategy: redisRetryStrategy,
  });
  producer.on('error', (err) => o.log.debug({ err: err.message }, 'queue redis error'));
  // The BullMQ Queue is made once the connection is up. A Queue that starts initializing on a connection that
  // never comes up rejects its init after close() has dropped its listeners: an unhandled rejection that would
  // take the process down when Redis is unreachable at start. Until then the queue reports itself unreachable
  // and the outbox keeps the jobs.
  let made: Queue | undefined;
  const connected = (): Promise<void> =>
    new Promise((resolve, reject) => {
      if (producer.status === 'ready') return resolve();
      const timer = setTimeout(() => {
        producer.off('ready', onReady);
        reject(new Error(`queue Redis is not connected (${producer.status})`));
      }, 2000);
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      producer.once('ready', onReady);
    });
  const queue = async (): Promise<Queue> => {
    if (made) return made;
    await connected();
    if (made) return made;
    made = new Queue(o.name ?? QUEUE_NAME, { connection: producer, prefix });
    made.on('error', (err) => o.log.debug({ err: err.message }, 'queue error'));
    return made;
  };
  const consumers: Array<{ close(): Promise<void> }> = [];

  return {
    kind: 'bullmq',
    durable: true,
    async add(jobs) {
      if (!jobs.length) return;
      await (await queue()).addBulk(
        jobs.map((j) => {
          const retry = retryOf(j.name);
          return {
            name: j.name,
            data: j.payload,
            opts: {
              jobId: j.id,
              timestamp: j.timestamp,
              attempts: retry.attempts,
              backoff: { type: retry.delayFromError ? 'handler' : 'exponential', delay: retry.backoffMs },
              // Finished jobs stay a while, so a late re-relay of the same id is recognised and dropped.
              removeOnComplete: { age: DAY_S, count: 50_000 },
              removeOnFail: { age: 14 * DAY_S },
            },
          };
        }),
      );
    },
    backlog: () => 0,
    consume(processor, opts) {
      // A worker blocks on Redis, so it needs its own connection that retries forever. The BullMQ Worker is made
      // once that connection is up, for the same reason as the Queue above: one made on a connection that never
      // comes up rejects its init after close() and would take the process down.
      // No command timeout (BullMQ's blocking waits and retries need none), but a silent connection is reopened.
      const connection = new Redis(o.redisUrl, { maxRetriesPerRequest: null, socketTimeout, retryStrategy: redisRetryStrategy });
      connection.on('error', (err) => o.log.debug({ err: err.message }, 'worker redis error'));
      const lockDuration = opts.lockDurationMs ?? 30_000;
      let worker: Worker | undefined;
      let closed = false;
      const start = () => {
        if (closed || worker) return;
        worker = new Worker(
          o.name ?? QUEUE_NAME,
          (job: Job) => processor({ id: job.id!, name: job.name, payload: job.data, timestamp: job.timestamp, attempt: job.attemptsMade + 1 }),
          {
            connection, prefix, concurrency: opts.concurrency, lockDuration, stalledInterval: lockDuration, maxStalledCount: 3,
            // Jobs with backoff type 'handler' wait what their handler asked for (RetryLaterError).
            settings: { backoffStrategy: (attemptsMade: number, _type?: string, err?: Error, job?: MinimalJob) => handlerBackoff(attemptsMade, job?.opts.backoff && typeof job.opts.backoff === 'object' ? job.opts.backoff.delay ?? 1000 : 1000, err) },
          },
        );
        worker.on('error', (err) => o.log.warn({ err: err.message }, 'worker error'));
        worker.on('failed', (job, err) => {
          if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) {
            o.log.error({ jobId: job.id, job: job.name, attempts: job.attemptsMade, err: err.message }, 'job moved to the failed set');
          }
        });
        worker.on('stalled', (jobId) => o.log.warn({ jobId }, 'job stalled (its worker stopped); it will run again'));
      };
      if (connection.status === 'ready') start();
      else connection.once('ready', start);
      const entry = {
        async close() {
          closed = true;
          connection.off('ready', start);
          await worker?.close();
          connection.disconnect();
          consumers.splice(consumers.indexOf(entry), 1);
        },
      };
      consumers.push(entry);
      return entry;
    },
    async counts(): Promise<QueueCounts> {
      // BullMQ 6 has no 'paused' list: a paused queue's jobs stay in its wait list and count as waiting.
      const c = await (await queue()).getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed', 'completed');
      return {
        waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
        active: c.active ?? 0,
        delayed: c.delayed ?? 0,
        failed: c.failed ?? 0,
        completed: c.completed ?? 0,
      };
    },
    async failed(start, end) {
      const jobs = await (await queue()).getFailed(start, end);
      return jobs.filter(Boolean).map(
        (j): FailedJob => ({
          id: j.id!, name: j.name, payload: j.data, failedReason: j.failedReason ?? '', attemptsMade: j.attemptsMade,
          createdAt: j.timestamp, failedAt: j.finishedOn ?? null,
        }),
      );
    },
    async retry(id): Promise<RetryResult> {
      const job = await (await queue()).getJob(id);
      if (!job) return 'not_found';
      if ((await job.getState()) !== 'failed') return 'not_failed';
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      return 'retried';
    },
    ping: () => producer.ping().then((r) => r === 'PONG', () => false),
    async close() {
      await Promise.all([...consumers].map((c) => c.close()));
      await made?.close();
      producer.disconnect();
    },
  };
}
