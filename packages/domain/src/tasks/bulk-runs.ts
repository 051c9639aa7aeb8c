import { type Deps, DomainError, notFound, type Repos } from '../shared/index.js';
import { type Actor, requireScope } from '../keys/index.js';
import { type ApplyOptions, applyTaskItems, type BulkTaskResult, type BulkTasksInput } from './bulk.js';

/**
 * Bulk runs: a long bulk change applied in the background, batch by batch, for MCP's tasks extension (a call of more
 * than BULK_RUN_ABOVE items answers at once with a run the client polls). The run's state is stored, so any replica
 * answers for it. Each batch is one transaction that locks the run's row, checks it is still working, applies its
 * items through the same use case as a bulk call (applyTaskItems: same rights, activity, webhooks, automations) and
 * writes their entries: a batch is applied wholly with its entries or not at all, so no item is applied twice and a
 * cancel (which takes the same lock) stops the run exactly between two batches.
 *
 * A replica that stops mid-run stops renewing the run's lease. Whoever reads a run whose lease lapsed marks it failed,
 * with the entries of the items applied so far: resuming instead would apply the rest minutes later, on a board that
 * people have changed meanwhile, with no one waiting for it.
 */

/** Calls with more items than this run in the background (when the client can follow a task); others answer at once. */
export const BULK_RUN_ABOVE = 25;
/** Items per batch: the cancel check comes between batches. */
export const BULK_RUN_BATCH = 10;
/** How long an ended run is kept for tasks/get. */
export const BULK_RUN_TTL_MS = 3_600_000;
/** A run not renewed for this long is taken for dead (a batch takes well under a second). */
export const BULK_RUN_LEASE_MS = 30_000;

export type BulkRunStatus = 'working' | 'completed' | 'failed' | 'cancelled';

export interface BulkRunRecord {
  id: string;
  workspaceId: string;
  keyId: string;
  status: BulkRunStatus;
  items: unknown[];
  /** Entries of the items applied so far, in order (all of them once completed). */
  results: BulkTaskResult[];
  statusMessage: string | null;
  createdAt: number;
  updatedAt: number;
  leaseUntil: number | null;
  expiresAt: number | null;
}

/** Saves a run's new state and tells its listeners, once the caller's transaction commits. */
async function saveRun(store: Repos, run: BulkRunRecord): Promise<void> {
  await store.bulkRuns.save(run);
  store.changes.note({ kind: 'run', workspaceId: run.workspaceId, id: run.id });
}

export interface BulkRunRepo {
  insert(run: BulkRunRecord): Promise<void>;
  get(id: string): Promise<BulkRunRecord | undefined>;
  /** The run, its row locked until the caller's transaction ends. */
  lock(id: string): Promise<BulkRunRecord | undefined>;
  save(run: BulkRunRecord): Promise<void>;
  /** Deletes runs that ended before `now` minus their time to live; answers how many. */
  prune(now: number): Promise<number>;
}

declare module '../shared/store.js' {
  interface Repos {
    /** Long bulk changes running in the background (MCP tasks). */
    bulkRuns: BulkRunRepo;
  }
}

/** A run that is missing, expired or another key's: all answer alike, so nothing tells one from the other. */
const unknownRun = (id: string) => notFound(`task ${id}`);

/** The keys of the tasks a run applied so far, as its status message names them. */
const applied = (results: BulkTaskResult[]) => [...new Set(results.filter((r) => r.status === 200).map((r) => r.task))].join(', ') || 'none';

const progress = (run: Pick<BulkRunRecord, 'results' | 'items'>) => `${run.results.length} of ${run.items.length} items done`;

/** Stores a new run of `input`'s items for `actor`'s key; the caller then drives it with runBulk. */
export async function startBulkRun(actor: Actor, input: BulkTasksInput, deps: Deps): Promise<BulkRunRecord> {
  requireScope(actor, 'tasks:write');
  const now = deps.now();
  // Ended runs past their time are deleted as new ones start (an index range scan), so none piles up.
  await deps.store.bulkRuns.prune(now);
  const run: BulkRunRecord = {
    id: deps.newId('run'), workspaceId: actor.workspace.id, keyId: actor.key.id, status: 'working', items: input.items, results: [],
    statusMessage: progress({ results: [], items: input.items }), createdAt: now, updatedAt: now, leaseUntil: now + BULK_RUN_LEASE_MS, expiresAt: null,
  };
  await deps.store.bulkRuns.insert(run);
  return run;
}

/** Ends a run in `status`: kept for its time to live from now. */
function ended(run: BulkRunRecord, status: BulkRunStatus, statusMessage: string, now: number): BulkRunRecord {
  return { ...run, status, statusMessage, updatedAt: now, leaseUntil: null, expiresAt: now + BULK_RUN_TTL_MS };
}

/** A working run whose lease lapsed (its replica stopped): failed, with what it applied. Null when it is alive or ended. */
function lapsed(run: BulkRunRecord, now: number): BulkRunRecord | null {
  if (run.status !== 'working' || (run.leaseUntil ?? 0) > now) return null;
  return ended(run, 'failed', `Stopped: the server running it went away after ${progress(run)}; applied: ${applied(run.results)}`, now);
}

/**
 * Applies the run's remaining items, batch by batch, each batch its own transaction; stops when the run is no longer
 * working (cancelled, or failed by another replica). `onChange` hears the run after each batch (the next waits for it). A fault (not an item's
 * error, which is that item's entry) ends the run failed.
 */
export async function runBulk(
  actor: Actor, runId: string, deps: Deps, o: Pick<ApplyOptions, 'prepare'> & { onChange?: (run: BulkRunRecord) => void | Promise<void> } = {},
): Promise<BulkRunRecord | undefined> {
  let last: BulkRunRecord | undefined;
  try {
    for (;;) {
      let queued = false;
      const run = await deps.store.transaction(async (store) => {
        const run = await store.bulkRuns.lock(runId);
        if (!run || run.status !== 'working') return undefined;
        const from = run.results.length;
        const batch = run.items.slice(from, from + BULK_RUN_BATCH);
        const results = await applyTaskItems(actor, batch, { ...deps, store, jobs: { notify: () => void (queued = true) } }, { prepare: o.prepare, offset: from });
        const next = { ...run, results: [...run.results, ...results] };
        const now = deps.now();
        const saved = next.results.length >= next.items.length
          ? ended(next, 'completed', `Updated ${next.results.filter((r) => r.status === 200).length} of ${next.items.length} tasks`, now)
          : { ...next, statusMessage: progress(next), updatedAt: now, leaseUntil: now + BULK_RUN_LEASE_MS };
        await saveRun(store, saved);
        return saved;
      });
      if (queued) deps.jobs.notify();
      if (!run) return last;
      last = run;
      await o.onChange?.(run);
      if (run.status !== 'working') return run;
    }
  } catch (e) {
    const failed = await deps.store.transaction(async (store) => {
      const run = await store.bulkRuns.lock(runId);
      if (!run || run.status !== 'working') return undefined;
      const why = e instanceof DomainError ? e.message : 'an internal error (it was logged)';
      const saved = ended(run, 'failed', `Stopped after ${progress(run)}: ${why}; applied: ${applied(run.results)}`, deps.now());
      await saveRun(store, saved);
      return saved;
    });
    if (failed) await o.onChange?.(failed);
    throw e;
  }
}

/** The run as `actor`'s key may see it: only the key that started it; expired runs are unknown. */
export async function getBulkRun(actor: Actor, runId: string, deps: Deps): Promise<BulkRunRecord> {
  const now = deps.now();
  const run = await deps.store.bulkRuns.get(runId);
  if (!run || run.keyId !== actor.key.id || run.workspaceId !== actor.workspace.id || (run.expiresAt !== null && run.expiresAt <= now)) {
    throw unknownRun(runId);
  }
  if (!lapsed(run, now)) return run;
  // Its replica is gone: decided under the row's lock, so a batch committing meanwhile is counted.
  return deps.store.transaction(async (store) => {
    const locked = (await store.bulkRuns.lock(runId))!;
    const failed = lapsed(locked, deps.now());
    if (!failed) return locked;
    await saveRun(store, failed);
    return failed;
  });
}

/**
 * Cancels a working run between two batches (the lock waits for a batch in progress to commit): cancelled, naming the
 * tasks applied before. An ended run stays as it ended.
 */
export async function cancelBulkRun(actor: Actor, runId: string, deps: Deps): Promise<BulkRunRecord> {
  await getBulkRun(actor, runId, deps);
  return deps.store.transaction(async (store) => {
    const run = await store.bulkRuns.lock(runId);
    if (!run) throw unknownRun(runId);
    if (run.status !== 'working') return run;
    const saved = ended(run, 'cancelled', `Cancelled after ${progress(run)}; applied: ${applied(run.results)}`, deps.now());
    await saveRun(store, saved);
    return saved;
  });
}
