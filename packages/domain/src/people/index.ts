/** People: workspaces, users, teams and labels; resolving people by name, login or `me`; the operator's workspace, user and team verbs. */
export * from './schema.js';
export type * from './ports.js';
export * from './present.js';
export * from './directory.js';
export * from './resolve.js';
export * from './admin.js';
export * from './complete.js';
