/** A task with everything around it, for agents and GET /tasks/{ref}/context: the context page and the task view in parts. */
export * from './schema.js';
export * from './render.js';
export * from './context.js';
export * from './view.js';
export * from './board.js';
