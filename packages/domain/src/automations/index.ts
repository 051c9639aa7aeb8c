/** Board automations: rules run on task_created. */
export * from './schema.js';
export type * from './ports.js';
export * from './automations.js';
