/**
 * The kernel every feature shares: errors, zod with OpenAPI, paging and cursors, common schemas, text and storable
 * rules, the depth and shape of request values, days and periods, plan limits, the outbox's job catalog and the
 * `Deps` wiring. It imports no feature.
 */
export * from './zod.js';
export * from './errors.js';
export * from './schemas.js';
export * from './one-line.js';
export type * from './paging.js';
export * from './cursor.js';
export * from './text.js';
export * from './request-shape.js';
export * from './storable.js';
export * from './period.js';
export * from './plans.js';
export * from './outbox.js';
export * from './changes.js';
export type * from './mcp-sessions.js';
export * from './activity.js';
export type * from './store.js';
