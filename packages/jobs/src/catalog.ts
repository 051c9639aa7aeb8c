import { UnrecoverableError } from 'bullmq';
import { formatIssues, JOB_SCHEMAS, type JobName, type JobPayload } from '@tt/domain';

// The job names and payload schemas live once, in the domain (whose use cases write them to the outbox);
// producers, the relay and the worker take them from here.
export { JOB_SCHEMAS, type JobName, type JobPayload };

/** BullMQ queue name; keys are `<prefix>:jobs:*`. */
export const QUEUE_NAME = 'jobs';
export const DEFAULT_PREFIX = 'tt';
/** Webhook deliveries wait on other servers (up to the 10 s timeout), so they have a queue and a concurrency of their own. */
export const WEBHOOK_QUEUE_NAME = 'webhooks';
export type Lane = 'jobs' | 'webhooks';
export const laneOf = (name: string): Lane => (name.startsWith('webhooks.') ? 'webhooks' : 'jobs');

export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** First backoff; it doubles with every further try. */
  backoffMs: number;
  /** The handler sets each wait itself (RetryLaterError.retryDelayMs) and ends the job when its schedule is over. */
  delayFromError?: boolean;
}

/** Retry settings per job: a handful of tries over about a minute, then the failed set. */
export const JOB_RETRY: Record<JobName, RetryPolicy> = {
  'notify.assigned': { attempts: 6, backoffMs: 1000 },
  'notify.comment': { attempts: 6, backoffMs: 1000 },
  'automations.task_created': { attempts: 6, backoffMs: 1000 },
  // Attempts are bounded by the delivery's own retry window (3 days by default), not by this count.
  'webhooks.deliver': { attempts: 10_000, backoffMs: 1000, delayFromError: true },
};

/** The wait a handler asked for by throwing RetryLaterError (read by property, so any copy of the class works). */
export function retryDelayOf(err: unknown): number | undefined {
  const ms = (err as { retryDelayMs?: unknown } | undefined)?.retryDelayMs;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** Backoff of jobs whose handler sets the wait: its wait, or (for unexpected faults) doubling from the base up to an hour. */
export const handlerBackoff = (attemptsMade: number, baseMs: number, err: unknown): number =>
  retryDelayOf(err) ?? Math.min(baseMs * 2 ** Math.min(Math.max(attemptsMade - 1, 0), 30), 3_600_000);

/** Retry policy of a job; unknown names fail at once in the worker. */
export const retryOf = (name: string): RetryPolicy => JOB_RETRY[name as JobName] ?? { attempts: 1, backoffMs: 1000 };

export const isJobName = (name: string): name is JobName => Object.prototype.hasOwnProperty.call(JOB_SCHEMAS, name);

/** Validates a payload at the consuming end; a job that can never be right fails without retries. */
export function parsePayload<N extends JobName>(name: N, data: unknown): JobPayload<N> {
  const parsed = JOB_SCHEMAS[name].safeParse(data);
  if (!parsed.success) throw new UnrecoverableError(`bad payload of ${name}: ${formatIssues(parsed.error.issues as never)}`);
  return parsed.data as JobPayload<N>;
}

/** True for failures that must not be retried. */
export const isPermanent = (err: unknown): boolean => err instanceof UnrecoverableError || (err as Error | undefined)?.name === 'UnrecoverableError';
