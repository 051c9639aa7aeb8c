/** Activity and audit: a task's history, the workspace's feed and the operator's audit log (writing is in the kernel). */
export * from './schema.js';
export * from './present.js';
export * from './read.js';
export * from './visibility.js';
export * from './retention.js';
