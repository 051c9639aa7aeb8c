export { createWorkerApp, startWorker, type WorkerHandle } from './worker.js';
export { loadWorkerConfig, WorkerConfigSchema, type WorkerConfig } from './config.js';
