/** The few logger methods the jobs package uses; a pino logger fits. */
export interface Log {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Log;
}

/**
 * Runs `fn` with its database work bounded to `ms` on the client side: the store's `withDeadline`, handed in by the
 * process that opens the store (this package sees the store only through the domain's port). A statement the
 * database does not answer in time fails, its connection is discarded and a transaction is rolled back, so a silent
 * database or network ends the work with an error instead of holding it until TCP gives up.
 */
export type WithDeadline = <T>(ms: number, fn: () => Promise<T>) => Promise<T>;

/** No bound: for queues and tests that run without a store of their own. */
export const unbounded: WithDeadline = (_ms, fn) => fn();

/** A job handed to a queue: the id makes adding idempotent (`outbox-<row id>` for relayed jobs). */
export interface QueuedJob {
  id: string;
  name: string;
  payload: unknown;
  /** When the event happened (the outbox row's time). */
  timestamp: number;
}

/** One try of a job, as a processor sees it. */
export interface JobRun extends QueuedJob {
  /** 1 for the first try. */
  attempt: number;
}

export type JobProcessor = (job: JobRun) => Promise<unknown>;

export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
}

export interface FailedJob {
  id: string;
  name: string;
  payload: unknown;
  failedReason: string;
  attemptsMade: number;
  createdAt: number;
  failedAt: number | null;
}

export type RetryResult = 'retried' | 'not_found' | 'not_failed';

export interface ConsumeOptions {
  concurrency: number;
  /** How long a job stays locked to a worker without a heartbeat; a killed worker's jobs return after this. */
  lockDurationMs?: number | undefined;
  /** Webhook deliveries handled at once (their own queue); default `concurrency`. */
  webhookConcurrency?: number | undefined;
}

export interface JobConsumer {
  /** Takes no new jobs and resolves once the jobs in hand are finished. */
  close(): Promise<void>;
}

/** The queue port: BullMQ on Redis, or in-process. */
export interface JobQueue {
  readonly kind: 'bullmq' | 'memory';
  /**
   * True when added jobs outlive this process (Redis): the relay marks an outbox row done once its job is added.
   * False (in-process): the row is marked done only when its job has been handled, so a crash loses nothing.
   */
  readonly durable: boolean;
  /** Adds jobs; a job whose id the queue already holds is ignored. */
  add(jobs: QueuedJob[]): Promise<void>;
  /** Jobs this process holds and has not finished: waiting, running or waiting for a retry (in-process queue only). */
  backlog(): number;
  consume(processor: JobProcessor, opts: ConsumeOptions): JobConsumer;
  counts(): Promise<QueueCounts>;
  /** Failed jobs, newest first. */
  failed(start: number, end: number): Promise<FailedJob[]>;
  /** Puts a failed job back to be tried again with a fresh count of attempts. */
  retry(id: string): Promise<RetryResult>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
