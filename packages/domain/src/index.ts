/**
 * The domain: one folder per feature (schema, ports, rules, use cases, presenters and tests side by side) over a small
 * shared kernel. A feature imports another only through its index; apps call the use cases through these namespaces.
 */
export * from './shared/index.js';
export * from './keys/index.js';
export * from './people/index.js';
export * from './versions/index.js';
export * from './idempotency/index.js';
export * from './webhooks/index.js';
export * from './projects/index.js';
export * from './tasks/index.js';
export * from './comments/index.js';
export * from './time/index.js';
export * from './docs/index.js';
export * from './meetings/index.js';
export * from './notifications/index.js';
export * from './automations/index.js';
export * from './context/index.js';
export * from './oauth/index.js';
export * from './activity/index.js';
export * as keys from './keys/index.js';
export * as people from './people/index.js';
export * as versions from './versions/index.js';
export * as idempotency from './idempotency/index.js';
export * as webhooks from './webhooks/index.js';
export * as projects from './projects/index.js';
export * as tasks from './tasks/index.js';
export * as comments from './comments/index.js';
export * as time from './time/index.js';
export * as docs from './docs/index.js';
export * as meetings from './meetings/index.js';
export * as notifications from './notifications/index.js';
export * as automations from './automations/index.js';
export * as context from './context/index.js';
export * as oauth from './oauth/index.js';
export * as activity from './activity/index.js';
