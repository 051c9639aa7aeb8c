import { UnrecoverableError } from 'bullmq';
import { automations, notifications, webhooks, type Deps } from '@tt/domain';
import { isJobName, isPermanent, parsePayload, type JobName, type JobPayload } from './catalog.js';
import { unbounded, type JobProcessor, type JobRun, type Log, type WithDeadline } from './queue.js';

type Handler<N extends JobName> = (payload: JobPayload<N>, meta: notifications.JobMeta, deps: Deps) => Promise<Record<string, unknown>>;

/** Each job name to its use case; the handlers are idempotent, so a retry or a redelivery changes nothing twice. */
const HANDLERS: { [N in JobName]: Handler<N> } = {
  'notify.assigned': async (p, meta, deps) => ({ delivered: await notifications.deliverAssigned(p, meta, deps) }),
  'notify.comment': async (p, meta, deps) => ({ delivered: await notifications.deliverComment(p, meta, deps) }),
  'automations.task_created': async (p, _meta, deps) => ({ rules: await automations.runTaskCreated(p, deps) }),
  'webhooks.deliver': async (p, _meta, deps) => ({ ...(await webhooks.deliver(p, deps)) }),
};

/** Validates a job's payload and runs its handler. */
export async function handleJob(job: JobRun, deps: Deps): Promise<Record<string, unknown>> {
  if (!isJobName(job.name)) throw new UnrecoverableError(`unknown job ${job.name}`);
  const payload = parsePayload(job.name, job.payload);
  const handler = HANDLERS[job.name] as Handler<JobName>;
  return handler(payload, { jobId: job.id, occurredAt: job.timestamp }, deps);
}

/** A job's database deadline by default: its statements take milliseconds; a database silent this long is away. */
export const JOB_DEADLINE_MS = 10_000;

export interface ProcessorOptions {
  /**
   * Bounds each try's database work (the store's `withDeadline`): a database that stops answering fails the try with
   * an error, and the queue retries the job with its backoff (the handlers are idempotent), instead of holding a
   * worker slot until TCP gives up. Default: no bound.
   */
  deadline?: WithDeadline | undefined;
  /** Default JOB_DEADLINE_MS; a webhook delivery gets its send timeout on top (the POST runs between its statements). */
  deadlineMs?: number | undefined;
}

/** How long a try of `job` may take in all before its database work is abandoned. */
function jobDeadlineMs(job: JobRun, deps: Deps, base: number): number {
  return job.name === 'webhooks.deliver' ? base + (deps.webhooks?.policy.timeoutMs ?? 0) : base;
}

/** The processor both queues run: one pino line per job with its outcome and duration. */
export function createProcessor(deps: Deps, log: Log, o: ProcessorOptions = {}): JobProcessor {
  const deadline = o.deadline ?? unbounded;
  const base = o.deadlineMs ?? JOB_DEADLINE_MS;
  return async (job) => {
    const jobLog = log.child({ jobId: job.id, job: job.name, attempt: job.attempt });
    const started = Date.now();
    try {
      const result = await deadline(jobDeadlineMs(job, deps, base), () => handleJob(job, deps));
      jobLog.info({ ms: Date.now() - started, ...result }, 'job done');
      return result;
    } catch (err) {
      const e = err as Error;
      jobLog[isPermanent(err) ? 'error' : 'warn']({ ms: Date.now() - started, err: e.message, stack: e.stack }, isPermanent(err) ? 'job failed for good' : 'job failed; it will be retried');
      throw err;
    }
  };
}
