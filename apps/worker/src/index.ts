export { createWorkerApp, startWorker, type WorkerHandle } from './worker.js';
export { loadWorkerConfig, WorkerConfigSchema, type WorkerConfig } from './config.js';
export { startRetention, type Retention } from './retention.js';
