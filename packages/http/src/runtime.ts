import { Redis } from 'ioredis';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Deps, JobSignal } from '@tt/domain';
import { type ChangeFeedHandle, createJobSystem, createLocalChangeFeed, createRedisChangeFeed, createWebhookPorts, DEFAULT_PREFIX, type JobSystem, redisRetryStrategy } from '@tt/jobs';
import { createStore, type DatabaseOptions, type DatabaseWatch, isPglite, migrate, newId, openDatabase, startMaintenance, watchDatabase, withDeadline, withoutDeadline } from '@tt/store';
import { webhookDeliveries } from './metrics.js';
import { createRateLimiter, type RateLimiter } from './rate-limit.js';
import { createDrain, type Drain } from './readiness.js';
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from './webhook-config.js';

export interface RuntimeOptions {
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
  /** Test-only seam: an embedded PGlite already open (see DatabaseOptions.pglite). */
  pglite?: DatabaseOptions['pglite'];
  redisUrl?: string | undefined;
  rateLimitPerMinute: number;
  logger: Logger;
  /** Run migrations on start (the API does; other processes wait for them). */
  migrate?: boolean;
  jobs?: JobSignal;
  /**
   * Run the job handlers in this process (the worker, embedded mode). Without Redis they always run in-process;
   * every runtime relays its outbox to the queue.
   */
  consumeJobs?: boolean;
  jobConcurrency?: number;
  jobLockDurationMs?: number;
  /** BullMQ key prefix; producers and workers of one deployment share it (default `tt`). */
  queuePrefix?: string | undefined;
  /** Webhook policy and address rule (WEBHOOK_* variables); default: public addresses only, the timings. */
  webhooks?: WebhookSettings | undefined;
  /** Webhook deliveries handled at once when this process consumes (WEBHOOK_CONCURRENCY). */
  webhookConcurrency?: number | undefined;
}

export interface Runtime {
  deps: Deps;
  db: Knex;
  redis: Redis | undefined;
  limiter: RateLimiter;
  /** Outbox relay and queue; the handlers too when this process consumes. */
  jobs: JobSystem;
  /** Changes of tasks and pages (and revocations) from every process: Redis pub/sub, or in-process without Redis. */
  changes: ChangeFeedHandle;
  /** PostgreSQL outages: logged once when they start and once when they end (undefined on embedded PGlite). */
  database: DatabaseWatch | undefined;
  /** Set on SIGTERM: `/ready` answers 503 `draining` from then on (every server of the process). */
  drain: Drain;
  /** What answers: `database`, and `redis` when configured (the apps decide which they cannot serve without). */
  ready(): Promise<Record<string, boolean>>;
  close(): Promise<void>;
}

/** `p`, or a rejection after `ms` (what `p` still does then is left to finish on its own). */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms)))]).finally(() => clearTimeout(timer));
}

/** The longest a readiness check waits for the database or Redis: a probe with a shorter timeout still gets an answer. */
export const READY_CHECK_MS = 800;

/** REDIS_COMMAND_TIMEOUT_MS (checked at start by each app's config), default 1000: a Redis command not answered by then fails. */
export function redisCommandTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.REDIS_COMMAND_TIMEOUT_MS?.trim();
  return v !== undefined && /^\d+$/.test(v) && Number(v) > 0 ? Number(v) : 1000;
}

/** Opens the database (PostgreSQL or embedded PGlite) and Redis when configured, and builds the use-case deps. */
export async function createRuntime(o: RuntimeOptions): Promise<Runtime> {
  const db = openDatabase({ databaseUrl: o.databaseUrl, dataDir: o.dataDir, pglite: o.pglite });
  if (o.migrate !== false) await migrate(db);
  const database = isPglite(db) ? undefined : watchDatabase(db, o.logger);
  // A Redis that stops answering without closing the connection fails each command after commandTimeout instead of
  // holding the request (the rate limit then falls back to its per-process budget).
  const redis = o.redisUrl ? new Redis(o.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true, commandTimeout: redisCommandTimeoutMs(), retryStrategy: redisRetryStrategy }) : undefined;
  redis?.on('error', (err) => o.logger.warn({ err: err.message }, 'redis error'));
  // Connect before serving, so the first requests already share the Redis budget.
  if (redis) await redis.connect().catch((err: Error) => o.logger.error({ err: err.message }, 'redis unreachable at start'));
  const changes = redis ? createRedisChangeFeed({ redis, prefix: o.queuePrefix ?? DEFAULT_PREFIX, log: o.logger }) : createLocalChangeFeed(o.logger);
  const store = createStore(db, changes);
  // The relay and the handlers under the same client-side deadline as requests: a silent database fails them and they retry.
  const jobs = createJobSystem({ store, redisUrl: o.redisUrl, prefix: o.queuePrefix, log: o.logger, deadline: withDeadline });
  const deps: Deps = {
    store,
    now: () => Date.now(),
    newId,
    jobs: o.jobs ?? jobs.signal,
    rateLimitPerMinute: o.rateLimitPerMinute,
    webhooks: createWebhookPorts({
      ...(o.webhooks ?? DEFAULT_WEBHOOK_SETTINGS),
      observe: (outcome) => webhookDeliveries.inc({ outcome }),
    }),
  };
  jobs.start(deps, { consume: o.consumeJobs, concurrency: o.jobConcurrency, lockDurationMs: o.jobLockDurationMs, webhookConcurrency: o.webhookConcurrency });
  const maintenance = startMaintenance(db, o.logger);
  return {
    deps,
    db,
    redis,
    limiter: createRateLimiter(o.rateLimitPerMinute, redis, o.logger),
    drain: createDrain(),
    jobs,
    changes,
    database,
    async ready() {
      // Both checks at once, each bounded (READY_CHECK_MS): /ready answers in about a second whatever the database or
      // Redis does. The database's `select 1` runs under a deadline of its own, so a connection that does not answer
      // is abandoned, not left to hang in the pool; while the watch holds an outage, its probes answer instead.
      const dbCheck =
        database?.down === true
          ? Promise.resolve(false)
          : withoutDeadline(() => withDeadline(READY_CHECK_MS, () => db.raw('select 1'))).then(() => true, (err: unknown) => {
              database?.report(err);
              return false;
            });
      // A Redis that hangs counts as down rather than holding the probe.
      const redisCheck = redis ? withTimeout(redis.ping(), READY_CHECK_MS).then((r) => r === 'PONG', () => false) : undefined;
      const checks: Record<string, boolean> = { database: await dbCheck };
      if (redisCheck) checks.redis = await redisCheck;
      return checks;
    },
    async close() {
      maintenance.stop();
      database?.stop();
      await jobs.close();
      await changes.close();
      await db.destroy();
      if (redis) redis.disconnect();
    },
  };
}
