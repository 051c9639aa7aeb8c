/** Webhooks: subscriptions, events recorded with the change that caused them, signed deliveries with retries. */
export * from './schema.js';
export * from './ports.js';
export * from './rules.js';
export * from './events.js';
export * from './delivery.js';
export * from './subscriptions.js';
