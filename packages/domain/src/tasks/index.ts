/** Tasks: create, read, list, change, move, delete; lookups by key or id and visibility; webhook events; the operator's archive, restore and attachments. */
export * from './schema.js';
export type * from './ports.js';
export * from './present.js';
export * from './rank.js';
export * from './lookup.js';
export * from './events.js';
export * from './activity.js';
export * from './create.js';
export * from './read.js';
export * from './change.js';
export * from './bulk.js';
export * from './bulk-runs.js';
export * from './admin.js';
export { assertActive, presentFullTask } from './checks.js';
export * from './complete.js';
