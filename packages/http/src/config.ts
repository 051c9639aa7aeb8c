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
  /** PostgreSQL timeouts and prepared statements, read by the store's connection factory (checked here at start). */
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(0).optional(),
  DATABASE_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(1).optional(),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).optional(),
  DATABASE_PREPARED_STATEMENTS: z.enum(['true', 'false', '1', '0']).optional(),
  /** Requests waiting for a pooled connection at most (the next get 503 at once), and the brownout threshold. */
  DATABASE_MAX_WAITING: z.coerce.number().int().min(0).optional(),
  DATABASE_SLOW_MS: z.coerce.number().int().min(1).optional(),
  /** How long past the deadline the answer of a write already sent is waited for, ms. */
  DATABASE_OUTCOME_GRACE_MS: z.coerce.number().int().min(0).optional(),
  /** A request's deadline, ms: database work past it is abandoned and the request answers 503 (0 = none). */
  REQUEST_DEADLINE_MS: z.coerce.number().int().min(0).max(120_000).optional(),
  /** A Redis command not answered within this many ms fails (the rate limit falls back). */
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).optional(),
  /** Optional bearer token for GET /metrics; unset = open (keep /metrics off public routes). */
  METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
};

/** Variables of the servers that answer keyed requests (api and mcp). */
export const ServerConfigShape = {
  ...BaseConfigShape,
  MCP_PORT: portVariable(3001),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  TRUST_PROXY: z.string().optional(),
  MIGRATE_ON_START: z.string().optional(),
  /**
   * On SIGTERM: how long the server keeps serving while reporting `/ready` 503 `draining`, before it stops accepting
   * connections (load balancers take it out meanwhile). Embedded mode defaults to 0.
   */
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(120_000).default(5000),
};

/** Bad environment variables, one problem per variable, each a sentence an operator can act on. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Bad configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

type Issue = z.core.$ZodIssue;

/** A zod issue about one variable, in words for the person setting it (values are not echoed: some are secrets). */
function problem(i: Issue): string {
  const name = i.path.map(String).join('.') || '(environment)';
  const fault = (() => {
    switch (i.code) {
      case 'invalid_type':
        return `must be a ${i.expected === 'number' ? 'number' : i.expected}`;
      case 'too_small':
        return i.origin === 'string' ? `must be at least ${String(i.minimum)} characters` : `must be at least ${String(i.minimum)}`;
      case 'too_big':
        return i.origin === 'string' ? `must be at most ${String(i.maximum)} characters` : `must be at most ${String(i.maximum)}`;
      case 'invalid_value':
        return `must be one of ${i.values.map(String).join(', ')}`;
      default:
        return i.message;
    }
  })();
  return `${name} ${fault}`;
}

/** Parses process configuration with a zod schema; a ConfigError names every bad variable. */
export function parseConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map(problem));
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
