import { z } from './zod.js';

/*
 * The outbox: jobs written in the transaction of the change that causes them, relayed to the queue after the commit.
 * This file holds the job catalog (names and payload schemas, shared by producers and the worker) and the outbox's port.
 */

/** The job catalog: every job name with its payload schema, shared by producers and the worker. */
export const JOB_SCHEMAS = {
  'notify.assigned': z.object({
    workspaceId: z.string(),
    taskId: z.string(),
    actorId: z.string(),
    userIds: z.array(z.string()),
  }),
  'notify.comment': z.object({
    workspaceId: z.string(),
    taskId: z.string(),
    commentId: z.string(),
    actorId: z.string(),
  }),
  'automations.task_created': z.object({
    workspaceId: z.string(),
    taskId: z.string(),
    boardId: z.string(),
    statusId: z.string(),
    actorId: z.string(),
  }),
  'webhooks.deliver': z.object({ deliveryId: z.string() }),
} as const;

export type JobName = keyof typeof JOB_SCHEMAS;
export type JobPayload<N extends JobName> = z.infer<(typeof JOB_SCHEMAS)[N]>;

/** Builds a validated outbox job. */
export function job<N extends JobName>(name: N, payload: JobPayload<N>): { name: N; payload: JobPayload<N> } {
  return { name, payload: JOB_SCHEMAS[name].parse(payload) as JobPayload<N> };
}

/** An outbox row waiting to be relayed to the queue. */
export interface OutboxRow {
  id: number;
  name: string;
  payload: Record<string, unknown>;
  createdAt: number;
}

/** A job written to the outbox in the same transaction as the change that caused it. */
export interface OutboxJob {
  name: string;
  payload: Record<string, unknown>;
}

/** Wakes the outbox relay after a commit; the relay delivers what the transaction wrote. */
export interface JobSignal {
  notify(): void;
}

export interface OutboxRepo {
  add(jobs: OutboxJob[]): Promise<void>;
  /**
   * Takes up to `limit` unrelayed, unclaimed rows, oldest first, skipping rows another relay has locked, and marks
   * them in the same statement: `relayedAt` (a durable queue: run it in the transaction that hands them over, so
   * a refused hand-over rolls the mark back) or `holder` (an in-process queue, which marks rows done only once
   * handled; the next claim passes them by through an index, however many are held).
   */
  claim(limit: number, mark: { relayedAt: number } | { holder: string }): Promise<OutboxRow[]>;
  /** Frees unfinished rows claimed by any holder but `holder` (a previous run's in-process queue, lost with it). */
  release(holder: string): Promise<number>;
  markRelayed(ids: number[], at: number): Promise<void>;
  /** Rows not yet relayed. */
  pending(): Promise<number>;
  /** Deletes rows relayed before `at`; returns how many. */
  prune(at: number): Promise<number>;
}

declare module './store.js' {
  interface Repos {
    outbox: OutboxRepo;
  }
}

/**
 * Thrown by a job's use case that wants to be tried again after `retryDelayMs` (its own schedule, not the queue's
 * default backoff). The queues read the property, so it works across package copies.
 */
export class RetryLaterError extends Error {
  constructor(readonly retryDelayMs: number, message: string) {
    super(message);
    this.name = 'RetryLaterError';
  }
}
