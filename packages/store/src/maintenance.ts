import type { Knex } from 'knex';
import { isPglite } from './db.js';

export interface Maintenance {
  stop(): void;
}

/**
 * Embedded PGlite has no autovacuum (no background workers): without this, the rows every job updates (outbox
 * claims and marks) stay dead in the tables and their indexes, and the planner's statistics stay those of an empty
 * database, so a long-running embedded server slows as it fills. Every `everyMs` it does what autovacuum would: it
 * vacuums the tables that jobs update and analyzes every table. On PostgreSQL it does nothing (autovacuum runs there).
 */
export function startMaintenance(db: Knex, log: { warn(o: object, msg: string): void }, everyMs = 300_000): Maintenance {
  if (!isPglite(db)) return { stop() {} };
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = db
      .raw('vacuum (analyze) outbox, task_counts, projects, notifications')
      .then(() => db.raw('analyze'))
      .catch((err: Error) => log.warn({ err: err.message }, 'embedded database maintenance failed'))
      .finally(() => (running = undefined));
  }, everyMs);
  timer.unref?.();
  return {
    stop() {
      clearInterval(timer);
    },
  };
}
