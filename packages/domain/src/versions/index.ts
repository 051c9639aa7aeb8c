/** Versions of tasks, pages and projects: the ETag / If-Match preconditions of writes. */
export * from './versions.js';
