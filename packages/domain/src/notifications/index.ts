/** The inbox: notifications of assignments, comments, mentions and replies, and the jobs that deliver them. */
export * from './schema.js';
export type * from './ports.js';
export * from './notifications.js';
