/** Documentation spaces and pages, their links to tasks, and spaces by id or name. */
export * from './schema.js';
export type * from './ports.js';
export * from './docs.js';
export * from './links.js';
export * from './lookup.js';
export * from './complete.js';
