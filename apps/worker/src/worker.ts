import type { Server } from 'node:http';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { closeServer, createLogger, createRuntime, type Runtime } from '@tt/http';
import type { JobStats } from '@tt/jobs';
import type { WorkerConfig } from './config.js';

/** Prometheus text of the queue gauges. */
export function metricsText(stats: JobStats): string {
  const gauges: Array<[string, string, number]> = [
    ['tt_jobs_waiting', 'Jobs waiting in the queue', stats.waiting],
    ['tt_jobs_active', 'Jobs being handled', stats.active],
    ['tt_jobs_delayed', 'Jobs waiting for a retry', stats.delayed],
    ['tt_jobs_failed', 'Jobs in the failed set', stats.failed],
    ['tt_jobs_completed', 'Finished jobs still kept by the queue', stats.completed],
    ['tt_outbox_pending', 'Outbox rows not yet relayed to the queue', stats.outboxPending],
  ];
  return gauges.map(([name, help, value]) => `# HELP ${name} ${help}\n# TYPE ${name} gauge\n${name} ${value}\n`).join('');
}

/** Health, readiness (database, Redis, and the queue's depth and failed count) and Prometheus metrics. */
export function createWorkerApp(runtime: Runtime): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/health', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/ready', async (_req, res) => {
    const checks = await runtime.ready();
    const stats = await runtime.jobs.stats().catch(() => undefined);
    checks.queue = stats !== undefined;
    const ok = Object.values(checks).every(Boolean);
    res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'not_ready', checks, queue: stats ?? null });
  });
  app.get('/metrics', async (_req, res) => {
    try {
      res.type('text/plain; version=0.0.4').send(metricsText(await runtime.jobs.stats()));
    } catch (err) {
      res.status(503).type('text/plain').send(`# queue unreachable: ${(err as Error).message}\n`);
    }
  });
  return app;
}

export interface WorkerHandle {
  url: string;
  runtime: Runtime;
  logger: Logger;
  /** HTTP first, then the jobs in hand, the relay, the database and Redis. */
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
    queuePrefix: config.QUEUE_PREFIX,
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = createWorkerApp(runtime).listen(config.WORKER_PORT, config.HOST, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.WORKER_PORT;
  logger.info({ port, concurrency: config.WORKER_CONCURRENCY, queue: config.REDIS_URL ? 'bullmq' : 'in-process' }, 'worker listening');
  return {
    url: `http://127.0.0.1:${port}`,
    runtime,
    logger,
    async stop() {
      await closeServer(server);
      await runtime.close();
    },
  };
}
