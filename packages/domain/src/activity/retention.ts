import type { Deps } from '../shared/index.js';

const DAY = 86_400_000;
/** Rows deleted per statement: short transactions, so writers never wait long behind housekeeping. */
const BATCH = 5_000;

/**
 * Housekeeping of ACTIVITY_RETENTION_DAYS: deletes activity entries older than `days` (the audit log is kept: it is
 * small, and an administrator wants it longer than the task feed). Returns how many went.
 */
export async function pruneActivity(days: number, deps: Deps): Promise<number> {
  const before = deps.now() - days * DAY;
  let total = 0;
  for (;;) {
    const n = await deps.store.activity.prune(before, BATCH);
    total += n;
    if (n < BATCH) return total;
  }
}
