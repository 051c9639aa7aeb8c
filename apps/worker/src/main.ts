import { onShutdown, startOrExit } from '@tt/http';
import { loadWorkerConfig } from './config.js';
import { startWorker } from './worker.js';

/**
 * The worker process: drains notification and automation jobs from BullMQ (REDIS_URL) into the database, relays
 * the outbox too, and serves /health, /ready and /metrics on WORKER_PORT. SIGTERM finishes the jobs in hand.
 */
const worker = await startOrExit('worker', () => startWorker(loadWorkerConfig()));
onShutdown(worker.logger, () => worker.stop(), 60_000);
