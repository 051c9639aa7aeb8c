import { z } from 'zod';
import { parseConfig } from '@tt/http';

/** Worker configuration, parsed once from the environment in main and passed down. */
export const WorkerConfigSchema = z.object({
  WORKER_PORT: z.coerce.number().int().min(0).max(65535).default(3002),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().optional(),
  DATA_DIR: z.string().default('./.data'),
  REDIS_URL: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Jobs handled at once by this process. */
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  /** A job stays locked this long without a heartbeat; jobs of a killed worker run again after it. */
  WORKER_LOCK_DURATION_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  /** BullMQ key prefix shared with the api and mcp processes. */
  QUEUE_PREFIX: z.string().regex(/^[\w.-]{1,64}$/, 'letters, digits, dots, dashes or underscores').default('tt'),
});
export type WorkerConfig = z.infer<typeof WorkerConfigSchema>;

export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  return parseConfig(WorkerConfigSchema, env);
}
