import { createLogger, createRuntime, migrateOnStart, onShutdown, SHUTDOWN_AFTER_DRAIN_MS, startOrExit } from '@tt/http';
import { loadConfig } from './config.js';
import { oauthSettings, startMcp } from './index.js';

/** Production entry: the MCP gateway as its own process. */
const { config, logger, runtime, mcp } = await startOrExit('mcp', async () => {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, 'mcp');
  const runtime = await createRuntime({
    databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, redisUrl: config.REDIS_URL,
    rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE, logger, migrate: migrateOnStart(config.MIGRATE_ON_START),
    queuePrefix: config.QUEUE_PREFIX,
  });
  const mcp = await startMcp({ port: config.MCP_PORT, host: config.HOST, logLevel: config.LOG_LEVEL, trustProxy: config.TRUST_PROXY, metricsToken: config.METRICS_TOKEN, drainMs: config.SHUTDOWN_DRAIN_MS, oauth: oauthSettings(config), conformanceFixtures: config.MCP_CONFORMANCE_FIXTURES }, runtime);
  return { config, logger, runtime, mcp };
});
logger.info({ url: `${mcp.url}/mcp` }, 'mcp listening');
onShutdown(logger, async () => {
  await mcp.stop();
  await runtime.close();
}, config.SHUTDOWN_DRAIN_MS + SHUTDOWN_AFTER_DRAIN_MS);
