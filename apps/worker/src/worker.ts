import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { closeServer, createLogger, createRuntime, httpMetrics, listen, metricsRoute, READY_CHECK_MS, readiness, type Runtime, webhookSettings, withTimeout } from '@tt/http';
import type { WorkerConfig } from './config.js';
import { startRetention } from './retention.js';

/**
 * Health, readiness (database, Redis, and the queue's depth and failed count; the worker cannot work without Redis, so
 * unlike the api and mcp it is not ready while Redis is away, and it is `draining` from SIGTERM on) and Prometheus metrics (the process's
 * registry with the queue gauges read at each scrape; behind `metricsToken` when one is set).
 */
export function createWorkerApp(runtime: Runtime, o: { metricsToken?: string | undefined } = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(httpMetrics('worker'));
  app.get('/health', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/ready', async (_req, res) => {
    // Both bounded (about a second): a Redis or database that does not answer makes the worker not ready, not silent.
    const [checks, stats] = await Promise.all([runtime.ready(), withTimeout(runtime.jobs.stats(), READY_CHECK_MS).catch(() => undefined)]);
    checks.queue = stats !== undefined;
    const { ok, body } = readiness(checks, { draining: runtime.drain.draining });
    res.status(ok ? 200 : 503).json({ ...body, queue: stats ?? null });
  });
  app.get('/metrics', metricsRoute({ jobs: runtime.jobs, token: o.metricsToken }));
  return app;
}

export interface WorkerHandle {
  url: string;
  runtime: Runtime;
  logger: Logger;
  /**
   * `/ready` turns 503 `draining` at once; the jobs in hand finish (BullMQ's close waits for them, new ones are not
   * taken) while HTTP still answers, then HTTP closes, then the relay, the database and Redis.
   */
  stop(): Promise<void>;
}

/** Starts the worker: a runtime that consumes jobs (BullMQ on REDIS_URL, or in-process) and its HTTP endpoints. */
export async function startWorker(config: WorkerConfig): Promise<WorkerHandle> {
  const logger = createLogger(config.LOG_LEVEL, 'worker');
  if (!config.REDIS_URL) {
    logger.warn('REDIS_URL is not set: jobs of this database run in this process only (the in-process queue of embedded mode)');
  }
  const runtime = await createRuntime({
    databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, redisUrl: config.REDIS_URL, rateLimitPerMinute: 1, logger,
    migrate: false, consumeJobs: true, jobConcurrency: config.WORKER_CONCURRENCY, jobLockDurationMs: config.WORKER_LOCK_DURATION_MS,
    queuePrefix: config.QUEUE_PREFIX, webhooks: webhookSettings(config), webhookConcurrency: config.WEBHOOK_CONCURRENCY,
  });
  const retention = startRetention(config.ACTIVITY_RETENTION_DAYS, runtime.deps, logger);
  const server = await listen(createWorkerApp(runtime, { metricsToken: config.METRICS_TOKEN }), config.WORKER_PORT, config.HOST);
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.WORKER_PORT;
  logger.info({ port, concurrency: config.WORKER_CONCURRENCY, webhookConcurrency: config.WEBHOOK_CONCURRENCY, queue: config.REDIS_URL ? 'bullmq' : 'in-process' }, 'worker listening');
  return {
    url: `http://127.0.0.1:${port}`,
    runtime,
    logger,
    async stop() {
      runtime.drain.begin();
      retention.stop();
      await runtime.jobs.stopConsuming();
      await closeServer(server);
      await runtime.close();
    },
  };
}
