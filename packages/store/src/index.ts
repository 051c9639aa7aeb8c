export { openDatabase, migrate, isPglite, usesPreparedStatements, databaseSettings, DEFAULT_DATABASE_SETTINGS, type DatabaseOptions, type DatabaseSettings } from './db.js';
export { withDeadline, withoutDeadline, activeDeadline, DeadlineExceeded, DatabaseBusy, OutcomeUnknown, outcomeUnknown, OUTCOME_GRACE_MS, type Deadline } from './deadline.js';
export { databaseUnavailable, watchDatabase, type DatabaseWatch } from './availability.js';
export { createStore } from './store.js';
export { startMaintenance, type Maintenance } from './maintenance.js';
export { newId } from './util.js';
export { migrationSource } from './migrations/index.js';
