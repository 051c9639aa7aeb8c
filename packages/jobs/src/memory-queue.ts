import { AsyncLocalStorage } from 'node:async_hooks';
import { handlerBackoff, isPermanent, retryOf } from './catalog.js';
import type { FailedJob, JobProcessor, JobQueue, Log, QueueCounts, QueuedJob, RetryResult } from './queue.js';

interface Entry {
  job: QueuedJob;
  state: 'waiting' | 'active' | 'delayed' | 'failed';
  attemptsMade: number;
  failedReason: string;
  failedAt: number | null;
  timer?: ReturnType<typeof setTimeout>;
}

export interface MemoryQueueOptions {
  log: Log;
  /** Called when a job is finished for good (done, or in the failed set); it is held until this resolves. */
  onSettled?: (job: QueuedJob, outcome: 'completed' | 'failed') => Promise<void>;
}

/**
 * The in-process queue of embedded mode (no Redis): the same retry policy and failed set as BullMQ, kept in
 * memory. Jobs are tried in arrival order up to the consumer's concurrency.
 */
export function createMemoryQueue(o: MemoryQueueOptions): JobQueue & { idle(): Promise<void> } {
  const entries = new Map<string, Entry>();
  const waiting: string[] = [];
  let processor: JobProcessor | undefined;
  let concurrency = 1;
  let active = 0;
  let closing = false;
  let completed = 0;
  // Kept as a count, not found by a scan of every entry: settling a job stays O(1) however many are held.
  let delayed = 0;
  let idleWaiters: Array<() => void> = [];
  // Jobs run in the context the queue was made in, not in their producer's: a job added by a relay pass (or a request)
  // must not inherit that pass's database deadline, as a BullMQ job never does.
  const detached = AsyncLocalStorage.snapshot();

  const busy = () => active > 0 || waiting.length > 0 || delayed > 0;
  const settleIdle = () => {
    if (busy()) return;
    const ws = idleWaiters;
    idleWaiters = [];
    for (const w of ws) w();
  };

  async function settle(entry: Entry, outcome: 'completed' | 'failed'): Promise<void> {
    try {
      await o.onSettled?.(entry.job, outcome);
    } catch (err) {
      o.log.warn({ err, jobId: entry.job.id }, 'could not record a finished job; it will run again (handlers are idempotent)');
    }
  }

  async function run(entry: Entry): Promise<void> {
    active++;
    entry.state = 'active';
    try {
      await processor!({ ...entry.job, attempt: entry.attemptsMade + 1 });
      await settle(entry, 'completed');
      entries.delete(entry.job.id);
      completed++;
    } catch (err) {
      entry.attemptsMade++;
      const policy = retryOf(entry.job.name);
      if (isPermanent(err) || entry.attemptsMade >= policy.attempts || closing) {
        if (closing && !isPermanent(err) && entry.attemptsMade < policy.attempts) {
          // Stopping: leave it unfinished, so the outbox row stays pending and the next start runs it.
          entries.delete(entry.job.id);
        } else {
          entry.state = 'failed';
          entry.failedReason = err instanceof Error ? err.message : String(err);
          entry.failedAt = Date.now();
          await settle(entry, 'failed');
        }
      } else {
        entry.state = 'delayed';
        delayed++;
        entry.timer = setTimeout(() => {
          delayed--;
          entry.timer = undefined;
          entry.state = 'waiting';
          waiting.push(entry.job.id);
          pump();
        }, policy.delayFromError ? handlerBackoff(entry.attemptsMade, policy.backoffMs, err) : policy.backoffMs * 2 ** (entry.attemptsMade - 1));
        entry.timer.unref?.();
      }
    } finally {
      active--;
      pump();
      settleIdle();
    }
  }

  function pump(): void {
    detached(pumpNow);
  }

  function pumpNow(): void {
    while (processor && !closing && active < concurrency && waiting.length) {
      const entry = entries.get(waiting.shift()!);
      if (entry && entry.state === 'waiting') void run(entry);
    }
  }

  return {
    kind: 'memory',
    durable: false,
    async add(jobs) {
      for (const job of jobs) {
        if (entries.has(job.id)) continue;
        entries.set(job.id, { job, state: 'waiting', attemptsMade: 0, failedReason: '', failedAt: null });
        waiting.push(job.id);
      }
      // Started on a later tick: the caller may still hold the (single) database connection in a transaction.
      setImmediate(pump);
    },
    backlog: () => waiting.length + active + delayed,
    consume(p, opts) {
      processor = p;
      concurrency = Math.max(1, opts.concurrency);
      setImmediate(pump);
      return {
        close: async () => {
          closing = true;
          await new Promise<void>((resolve) => {
            const check = () => (active === 0 ? resolve() : setTimeout(check, 10));
            check();
          });
        },
      };
    },
    async counts(): Promise<QueueCounts> {
      const c: QueueCounts = { waiting: 0, active: 0, delayed: 0, failed: 0, completed };
      for (const e of entries.values()) c[e.state]++;
      return c;
    },
    async failed(start, end) {
      const failed: FailedJob[] = [...entries.values()]
        .filter((e) => e.state === 'failed')
        .sort((a, b) => (b.failedAt ?? 0) - (a.failedAt ?? 0))
        .map((e) => ({
          id: e.job.id, name: e.job.name, payload: e.job.payload, failedReason: e.failedReason, attemptsMade: e.attemptsMade,
          createdAt: e.job.timestamp, failedAt: e.failedAt,
        }));
      return failed.slice(start, end + 1);
    },
    async retry(id): Promise<RetryResult> {
      const entry = entries.get(id);
      if (!entry) return 'not_found';
      if (entry.state !== 'failed') return 'not_failed';
      entry.state = 'waiting';
      entry.attemptsMade = 0;
      entry.failedAt = null;
      waiting.push(id);
      setImmediate(pump);
      return 'retried';
    },
    ping: async () => true,
    /** Resolves when nothing waits, runs or waits for a retry. */
    idle: () => new Promise<void>((resolve) => {
      if (!busy()) return resolve();
      idleWaiters.push(resolve);
    }),
    async close() {
      closing = true;
      for (const e of entries.values()) if (e.timer) clearTimeout(e.timer);
    },
  };
}
