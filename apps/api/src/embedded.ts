import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createLogger, createRuntime, onShutdown, parseConfig, SHUTDOWN_AFTER_DRAIN_MS, startOrExit, webhookSettings } from '@tt/http';
import { oauthSettings, startMcp } from '@tt/mcp';
import { startRetention, WorkerConfigSchema } from '@tt/worker';
import { ConfigSchema } from './config.js';
import { seedDemo } from './seed.js';
import { startApi } from './server.js';

/**
 * Embedded mode: api, mcp and worker in one process on PGlite and the in-process queue; demo data on first start.
 * It listens on 127.0.0.1 unless HOST says otherwise: it prints an operator token, which must not reach the network.
 */
// The api's settings and the worker's housekeeping ones: this process runs the worker's jobs too.
const EmbeddedConfigSchema = ConfigSchema.extend({ ACTIVITY_RETENTION_DAYS: WorkerConfigSchema.shape.ACTIVITY_RETENTION_DAYS });

const { config, logger, dataDir, adminToken, demoKey, runtime, retention, api, mcp } = await startOrExit('task tracker', async () => {
  // One process on one machine, behind no load balancer: nothing to drain unless SHUTDOWN_DRAIN_MS says so.
  const config = parseConfig(EmbeddedConfigSchema, { ...process.env, HOST: process.env.HOST || '127.0.0.1', SHUTDOWN_DRAIN_MS: process.env.SHUTDOWN_DRAIN_MS || '0' });
  const logger = createLogger(config.LOG_LEVEL, 'embedded');
  const dataDir = resolve(config.DATA_DIR);
  mkdirSync(dataDir, { recursive: true });
  const secretsFile = join(dataDir, 'embedded.json');
  const saved = existsSync(secretsFile) ? (JSON.parse(readFileSync(secretsFile, 'utf8')) as { adminToken: string; demoKey?: string }) : undefined;
  const adminToken = config.ADMIN_TOKEN ?? saved?.adminToken ?? randomBytes(24).toString('base64url');

  const runtime = await createRuntime({
    databaseUrl: config.DATABASE_URL, dataDir: config.DATABASE_URL ? undefined : join(dataDir, 'pg'), redisUrl: config.REDIS_URL,
    rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE, logger,
    // The worker's handlers run here too (in-process queue; with REDIS_URL, a BullMQ consumer in this process).
    consumeJobs: true,
    queuePrefix: config.QUEUE_PREFIX,
    // A demo on one machine: receivers on localhost are allowed unless WEBHOOK_ALLOW_PRIVATE=false.
    webhooks: webhookSettings(config, true),
  });
  let demoKey = saved?.demoKey;
  if (!demoKey) {
    demoKey = (await seedDemo(runtime.deps)).token;
    logger.info('seeded the demo workspace');
  }
  writeFileSync(secretsFile, JSON.stringify({ adminToken, demoKey }, null, 2), { mode: 0o600 });
  // The worker's housekeeping, as in the worker process: ACTIVITY_RETENTION_DAYS, a pass now and then hourly.
  const retention = startRetention(config.ACTIVITY_RETENTION_DAYS, runtime.deps, logger);

  const api = await startApi({ ...config, ADMIN_TOKEN: adminToken }, runtime);
  // One /metrics for the whole process, on the api port.
  const mcp = await startMcp({ port: config.MCP_PORT, host: config.HOST, logLevel: config.LOG_LEVEL, trustProxy: config.TRUST_PROXY, metrics: false, drainMs: config.SHUTDOWN_DRAIN_MS, oauth: oauthSettings(config) }, runtime);
  return { config, logger, dataDir, adminToken, demoKey, runtime, retention, api, mcp };
});
const exposed = config.HOST === '127.0.0.1' || config.HOST === 'localhost' || config.HOST === '::1' ? '' : `  (listening on ${config.HOST}: reachable from the network)`;

const lines = [
  '',
  'Task tracker is running (embedded mode: PGlite under ' + dataDir + ', in-process queue)' + exposed,
  `  API reference:  ${api.url}/docs`,
  `  REST API:       ${api.url}/v1   (OpenAPI: ${api.url}/v1/openapi.json)`,
  `  MCP endpoint:   ${mcp.url}/mcp   (Bearer key, or OAuth: add it as a connector and sign in with the demo key)`,
  `  Operator API:   ${api.url}/admin/v1`,
  `  Operator token: ${adminToken}`,
  `  Metrics:        ${api.url}/metrics   (api, mcp and jobs of this process)`,
  `  Demo API key:   ${demoKey}   (all rights, user alice)`,
  '',
  `  Try: curl -H "Authorization: Bearer ${demoKey}" ${api.url}/v1/tasks`,
  '',
];
process.stdout.write(lines.join('\n') + '\n');

onShutdown(logger, async () => {
  retention.stop();
  await Promise.all([api.stop(), mcp.stop()]);
  await runtime.close();
}, config.SHUTDOWN_DRAIN_MS + SHUTDOWN_AFTER_DRAIN_MS);
