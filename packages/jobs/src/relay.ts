import { randomBytes } from 'node:crypto';
import type { JobSignal, Store } from '@tt/domain';
import { unbounded, type JobQueue, type Log, type WithDeadline } from './queue.js';

export interface RelayOptions {
  store: Store;
  queue: JobQueue;
  log: Log;
  /** Poll period: rows written while the queue was down go out once it is back. */
  pollMs?: number;
  /**
   * Commits that wake the relay while a pass runs are gathered this long before the next pass (default 40 ms), so under
   * load a pass carries many rows: each pass is a transaction (BEGIN, the claim, COMMIT) and a queue add, and the
   * worker takes a bigger add in fewer, larger groups. A commit that finds the relay idle starts a pass at once, so only
   * a sustained load waits. At 600 creates a second, 5 ms cost the API about 0.2 ms of CPU and 0.1 commit per create
   * more than 40 ms (docs/performance.md).
   */
  gatherMs?: number;
  batch?: number;
  /** A queue that does not answer within this is treated as down (the claimed rows are released). */
  addTimeoutMs?: number;
  /**
   * Bounds each pass's database work (claim, add, commit) and each prune to `deadlineMs`: a database that stops
   * answering fails the pass, its transaction is rolled back and the rows wait for the next pass (nothing lost; a
   * row relayed again is dropped by its job id). Default: no bound.
   */
  deadline?: WithDeadline | undefined;
  /** Default RELAY_DEADLINE_MS: the queue's add timeout plus room for the pass's few statements. */
  deadlineMs?: number;
  /** Relayed rows are deleted after this long (the queue has long since dropped their ids). */
  keepMs?: number;
  /**
   * In-process queue: the most jobs it may hold unfinished. The rest wait in the outbox (on disk), so memory stays
   * flat however far the handlers fall behind.
   */
  maxBacklog?: number;
}

export interface OutboxRelay extends JobSignal {
  start(): void;
  /** Stops the loop after the pass in progress. */
  stop(): Promise<void>;
  /** One pass: claims unrelayed rows and hands them to the queue; returns how many. */
  relayOnce(): Promise<number>;
}

/** A relay pass's database deadline by default: above the queue's add timeout (5 s), which runs inside the pass. */
export const RELAY_DEADLINE_MS = 10_000;

/** Job id of an outbox row: the queue drops a second add of the same id. */
export const outboxJobId = (rowId: number): string => `outbox-${rowId}`;
export const outboxRowId = (jobId: string): number | undefined => {
  const m = /^outbox-(\d+)$/.exec(jobId);
  return m ? Number(m[1]) : undefined;
};

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`queue did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Moves committed outbox rows to the queue. Each pass locks a batch of rows (FOR UPDATE SKIP LOCKED, so relays in
 * several processes share the work) and marks them relayed in one statement, then adds their jobs with id
 * `outbox-<row id>` before the transaction commits: if adding fails it rolls back and the rows wait for the next
 * pass. A crash after the add and before the commit relays a row twice, which the queue drops by id. It runs when
 * woken after a commit and on a timer. Each pass runs under a database deadline (`deadline`), so a database that
 * stops answering fails the pass, and the loop tries again, instead of holding the relay until TCP gives up.
 */
export function createOutboxRelay(o: RelayOptions): OutboxRelay {
  const pollMs = o.pollMs ?? 1000;
  const gatherMs = o.gatherMs ?? 40;
  const batch = o.batch ?? 200;
  const addTimeoutMs = o.addTimeoutMs ?? 5000;
  const deadline = o.deadline ?? unbounded;
  const deadlineMs = o.deadlineMs ?? RELAY_DEADLINE_MS;
  let running = false;
  let woken = false;
  let wake: (() => void) | undefined;
  let loop: Promise<void> | undefined;
  let failures = 0;
  const keepMs = o.keepMs ?? 86_400_000;
  let nextPrune = Date.now() + 600_000;
  const maxBacklog = o.maxBacklog ?? 2000;
  // This relay's mark on the rows its in-process queue holds; rows marked by an earlier run were lost with it.
  const holder = `${process.pid}-${randomBytes(6).toString('hex')}`;
  let released = o.queue.durable;

  async function prune(): Promise<void> {
    if (Date.now() < nextPrune) return;
    nextPrune = Date.now() + 600_000;
    const n = await deadline(deadlineMs, () => o.store.outbox.prune(Date.now() - keepMs));
    if (n) o.log.info({ rows: n }, 'pruned relayed outbox rows');
  }

  const relayOnce = (): Promise<number> => deadline(deadlineMs, pass);

  async function pass(): Promise<number> {
    if (!released) {
      const n = await o.store.outbox.release(holder);
      if (n) o.log.info({ rows: n }, 'outbox rows of an earlier run handed back to the queue');
      released = true;
    }
    const room = o.queue.durable ? batch : Math.min(batch, maxBacklog - o.queue.backlog());
    if (room <= 0) return 0;
    return o.store.transaction(async (repos) => {
      // One indexed statement whatever the queue holds. A durable queue's rows are marked relayed at once (a failed
      // add rolls that back); an in-process queue's are marked held, and relayed when each job is finished.
      const rows = await repos.outbox.claim(room, o.queue.durable ? { relayedAt: Date.now() } : { holder });
      if (!rows.length) return 0;
      await withTimeout(
        o.queue.add(rows.map((r) => ({ id: outboxJobId(r.id), name: r.name, payload: r.payload, timestamp: r.createdAt }))),
        addTimeoutMs,
      );
      return rows.length;
    });
  }

  async function run(): Promise<void> {
    while (running) {
      woken = false;
      let n = 0;
      try {
        n = await relayOnce();
        await prune();
        if (failures) o.log.info({ after: failures }, 'outbox relay recovered');
        failures = 0;
      } catch (err) {
        // Logged on the first failure and then every minute or so, not every second.
        if (failures++ % 60 === 0) o.log.warn({ err: (err as Error).message, failures }, 'outbox relay failed; jobs stay in the outbox and are retried');
      }
      if (!running) break;
      const full = !o.queue.durable && o.queue.backlog() >= maxBacklog;
      if (!full && n >= batch) continue;
      if (!full && woken) {
        await new Promise((resolve) => setTimeout(resolve, gatherMs).unref?.());
        continue;
      }
      await new Promise<void>((resolve) => {
        // A full in-process queue is looked at again soon: it drains on its own, without a commit to wake the relay.
        const timer = setTimeout(resolve, full ? Math.min(pollMs, 20) : pollMs);
        timer.unref?.();
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  }

  return {
    notify() {
      woken = true;
      wake?.();
    },
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
    },
    relayOnce,
  };
}
