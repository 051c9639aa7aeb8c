import { onShutdown, SHUTDOWN_AFTER_DRAIN_MS, startOrExit } from '@tt/http';
import { loadConfig } from './config.js';
import { startApi } from './server.js';

/** Production entry: the REST API as its own process. */
const { config, api } = await startOrExit('api', async () => {
  const config = loadConfig();
  return { config, api: await startApi(config) };
});
api.logger.info({ url: `${api.url}/v1` }, 'api listening');
if (!config.ADMIN_TOKEN) api.logger.warn('ADMIN_TOKEN is not set: the operator API uses a random token for this process only');
onShutdown(api.logger, () => api.stop(), config.SHUTDOWN_DRAIN_MS + SHUTDOWN_AFTER_DRAIN_MS);
