import { createLogger, startOrExit } from '@tt/http';
import { migrate, openDatabase } from '@tt/store';
import { loadConfig } from './config.js';

/**
 * One-shot migration entry (a compose job, a Kubernetes Job, the topology script): migrates the database
 * and exits, so the api and mcp replicas can start with MIGRATE_ON_START=false and never race on migrations.
 */
const config = await startOrExit('migrate', () => loadConfig());
const logger = createLogger(config.LOG_LEVEL, 'migrate');
const db = openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, poolMax: 1 });
try {
  await migrate(db);
  logger.info('migrations applied');
} catch (err) {
  logger.error({ err }, 'migrations failed');
  process.exitCode = 1;
} finally {
  await db.destroy();
}
