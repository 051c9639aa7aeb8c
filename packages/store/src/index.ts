export { openDatabase, migrate, isPglite, type DatabaseOptions } from './db.js';
export { createStore } from './store.js';
export { newId } from './util.js';
export { migrationSource } from './migrations/index.js';
