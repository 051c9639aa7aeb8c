export * from './catalog.js';
export * from './queue.js';
export { createMemoryQueue, type MemoryQueueOptions } from './memory-queue.js';
export { createBullQueue, type BullQueueOptions } from './bullmq-queue.js';
export { createOutboxRelay, outboxJobId, outboxRowId, type OutboxRelay, type RelayOptions } from './relay.js';
export { createProcessor, handleJob } from './handlers.js';
export { createJobSystem, type JobStats, type JobSystem, type JobSystemOptions, type StartOptions } from './system.js';
export { createLaneQueue } from './lanes.js';
export { createWebhookPorts, resolveHost, sendWebhook, type WebhookPortsOptions } from './webhook-sender.js';
