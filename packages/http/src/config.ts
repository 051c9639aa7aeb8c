import { z } from 'zod';

/** A TCP port variable with its default (0 = any free port). */
export const portVariable = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/**
 * Variables every process reads (the runtime contract of DESIGN.md); each app's schema extends these.
 * QUEUE_PREFIX is the BullMQ key prefix shared by the api, mcp and worker processes of one deployment (default tt).
 */
export const BaseConfigShape = {
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().optional(),
  DATA_DIR: z.string().default('./.data'),
  REDIS_URL: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  QUEUE_PREFIX: z.string().regex(/^[\w.-]{1,64}$/, 'letters, digits, dots, dashes or underscores').optional(),
};

/** Variables of the servers that answer keyed requests (api and mcp). */
export const ServerConfigShape = {
  ...BaseConfigShape,
  MCP_PORT: portVariable(3001),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  TRUST_PROXY: z.string().optional(),
  MIGRATE_ON_START: z.string().optional(),
};

/** Parses process configuration with a zod schema, naming every bad variable. */
export function parseConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`Bad configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}

/** Express trust-proxy value from TRUST_PROXY: off by default, so X-Forwarded-For is ignored. */
export function trustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

/** MIGRATE_ON_START: migrations run when a process starts unless set to false or 0 (a one-shot job migrates instead). */
export function migrateOnStart(value: string | undefined): boolean {
  return !(value === 'false' || value === '0');
}
