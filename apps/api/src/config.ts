import { z } from 'zod';
import { parseConfig } from '@tt/http';

export { trustProxy } from '@tt/http';

/** Process configuration, parsed once from the environment in main and passed down. */
export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  MCP_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().optional(),
  DATA_DIR: z.string().default('./.data'),
  REDIS_URL: z.string().optional(),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  TRUST_PROXY: z.string().optional(),
  ADMIN_TOKEN: z.string().min(16, 'ADMIN_TOKEN must be at least 16 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PUBLIC_URL: z.string().optional(),
  MIGRATE_ON_START: z.string().optional(),
  /** BullMQ key prefix shared by the api, mcp and worker processes of one deployment (default tt). */
  QUEUE_PREFIX: z.string().regex(/^[\w.-]{1,64}$/, 'letters, digits, dots, dashes or underscores').optional(),
});
export type Config = z.infer<typeof ConfigSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return parseConfig(ConfigSchema, env);
}

