import { z } from 'zod';
import { parseConfig } from '@tt/http';

export { trustProxy } from '@tt/http';

/** Process configuration of the standalone MCP server, parsed once from the environment in main. */
export const ConfigSchema = z.object({
  MCP_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().optional(),
  DATA_DIR: z.string().default('./.data'),
  REDIS_URL: z.string().optional(),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: z.string().optional(),
  MIGRATE_ON_START: z.string().optional(),
  /** BullMQ key prefix shared by the api, mcp and worker processes of one deployment (default tt). */
  QUEUE_PREFIX: z.string().regex(/^[\w.-]{1,64}$/, 'letters, digits, dots, dashes or underscores').optional(),
});
export type Config = z.infer<typeof ConfigSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return parseConfig(ConfigSchema, env);
}


/** Host names always accepted in Host and Origin headers (DNS-rebinding protection). */
export const LOCAL_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** Local host names plus the comma list of MCP_ALLOWED_HOSTS (ports and schemes in the list are ignored). */
export function allowedHosts(value: string | undefined): string[] {
  const extra = (value ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean)
    .map((h) => {
      try {
        return new URL(h.includes('://') ? h : `http://${h}`).hostname;
      } catch {
        return h;
      }
    });
  return [...new Set([...LOCAL_HOSTS, ...extra])];
}
