/** Comments on tasks, with mentions and replies. */
export * from './schema.js';
export type * from './ports.js';
export * from './present.js';
export * from './comments.js';
