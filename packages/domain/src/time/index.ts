/** Time logs and reports. */
export * from './schema.js';
export type * from './ports.js';
export * from './time.js';
