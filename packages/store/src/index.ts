export { openDatabase, migrate, isPglite, type DatabaseOptions } from './db.js';
export { createStore } from './store.js';
export { startMaintenance, type Maintenance } from './maintenance.js';
export { newId } from './util.js';
export { migrationSource } from './migrations/index.js';
