import { UnrecoverableError } from 'bullmq';
import { automations, notifications, webhooks, type Deps } from '@tt/domain';
import { isJobName, isPermanent, parsePayload, type JobName, type JobPayload } from './catalog.js';
import type { JobProcessor, JobRun, Log } from './queue.js';

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

/** The processor both queues run: one pino line per job with its outcome and duration. */
export function createProcessor(deps: Deps, log: Log): JobProcessor {
  return async (job) => {
    const jobLog = log.child({ jobId: job.id, job: job.name, attempt: job.attempt });
    const started = Date.now();
    try {
      const result = await handleJob(job, deps);
      jobLog.info({ ms: Date.now() - started, ...result }, 'job done');
      return result;
    } catch (err) {
      const e = err as Error;
      jobLog[isPermanent(err) ? 'error' : 'warn']({ ms: Date.now() - started, err: e.message, stack: e.stack }, isPermanent(err) ? 'job failed for good' : 'job failed; it will be retried');
      throw err;
    }
  };
}
