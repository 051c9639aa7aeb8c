import { z } from 'zod';
import { BaseConfigShape, parseConfig, portVariable, WebhookConfigShape } from '@tt/http';

/** Worker configuration, parsed once from the environment in main and passed down. */
export const WorkerConfigSchema = z.object({
  ...BaseConfigShape,
  ...WebhookConfigShape,
  WORKER_PORT: portVariable(3002),
  /** Jobs handled at once by this process. */
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  /** Webhook deliveries sent at once by this process (their own queue, so slow receivers never hold up notifications). */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  /** A job stays locked this long without a heartbeat; jobs of a killed worker run again after it. */
  WORKER_LOCK_DURATION_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  /** BullMQ key prefix shared with the api and mcp processes. */
  QUEUE_PREFIX: BaseConfigShape.QUEUE_PREFIX.unwrap().default('tt'),
  /** Activity entries older than this many days are deleted (hourly); unset keeps them all. */
  ACTIVITY_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).optional(),
});
export type WorkerConfig = z.infer<typeof WorkerConfigSchema>;

export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  return parseConfig(WorkerConfigSchema, env);
}
