import express from 'express';
import { z } from 'zod';
import { closeServer, createLogger, createRuntime, onShutdown } from '@tt/http';

/**
 * The worker process. For now it connects to the database and Redis, reports health and shuts down
 * cleanly; job handlers (notifications, automations) arrive with the worker issue.
 */
const env = z
  .object({
    WORKER_PORT: z.coerce.number().int().min(0).default(3002),
    HOST: z.string().default('0.0.0.0'),
    DATABASE_URL: z.string().optional(),
    DATA_DIR: z.string().default('./.data'),
    REDIS_URL: z.string().optional(),
    LOG_LEVEL: z.string().default('info'),
  })
  .parse(process.env);

const logger = createLogger(env.LOG_LEVEL, 'worker');
const runtime = await createRuntime({
  databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR, redisUrl: env.REDIS_URL, rateLimitPerMinute: 1, logger, migrate: false,
});
const app = express();
app.get('/health', (_req, res) => void res.json({ status: 'ok' }));
app.get('/ready', async (_req, res) => {
  const checks = await runtime.ready();
  const ok = Object.values(checks).every(Boolean);
  res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'not_ready', checks });
});
const server = app.listen(env.WORKER_PORT, env.HOST, () => logger.info({ port: env.WORKER_PORT }, 'worker listening'));
onShutdown(logger, async () => {
  await closeServer(server);
  await runtime.close();
});
