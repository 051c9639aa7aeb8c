import type { Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { createLogger, drainServer, createRuntime, listen, migrateOnStart, type Runtime, webhookSettings } from '@tt/http';
import type { Logger } from 'pino';
import { createApiApp } from './app.js';
import { trustProxy, type Config } from './config.js';

export interface ApiServer {
  url: string;
  runtime: Runtime;
  server: Server;
  adminToken: string;
  logger: Logger;
  stop(): Promise<void>;
}

/** Starts the REST API on its own runtime (or a given one). */
export async function startApi(config: Config, runtime?: Runtime): Promise<ApiServer> {
  const logger = createLogger(config.LOG_LEVEL, 'api');
  const rt =
    runtime ??
    (await createRuntime({
      databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, redisUrl: config.REDIS_URL,
      rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE, logger, migrate: migrateOnStart(config.MIGRATE_ON_START),
      queuePrefix: config.QUEUE_PREFIX, webhooks: webhookSettings(config),
    }));
  const adminToken = config.ADMIN_TOKEN ?? randomBytes(24).toString('base64url');
  const { app } = createApiApp({
    deps: rt.deps, logger, limiter: rt.limiter, adminToken, trustProxy: trustProxy(config.TRUST_PROXY),
    ready: () => rt.ready(), drain: rt.drain, publicUrl: config.PUBLIC_URL, jobs: rt.jobs, metricsToken: config.METRICS_TOKEN,
  });
  const server = await listen(app, config.PORT, config.HOST);
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.PORT;
  return {
    url: `http://127.0.0.1:${port}`,
    runtime: rt,
    server,
    adminToken,
    logger,
    /** Drains (SHUTDOWN_DRAIN_MS: `/ready` 503 while still serving), closes the listener, finishes requests in flight. */
    async stop() {
      await drainServer(server, rt.drain, config.SHUTDOWN_DRAIN_MS);
      if (!runtime) await rt.close();
    },
  };
}
