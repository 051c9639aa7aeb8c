/** Recorded meetings, folders, transcripts, and tasks made from their agreements. */
export * from './schema.js';
export type * from './ports.js';
export * from './meetings.js';
export * from './agreements.js';
export * from './lookup.js';
export * from './complete.js';
