/** Projects with their boards and columns: use cases, templates, board access, and lookups by key, id or name. */
export * from './schema.js';
export type * from './ports.js';
export * from './templates.js';
export * from './present.js';
export * from './lookup.js';
export * from './projects.js';
export * from './access.js';
export * from './complete.js';
