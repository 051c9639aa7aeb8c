import { type Deps, DomainError, notFound, type Repos } from '../shared/index.js';
import { type Actor, requireScope } from '../keys/index.js';
import { type ApplyOptions, applyTaskItems, type BulkTaskResult, type BulkTasksInput } from './bulk.js';

/**
 * Runs: the state of MCP tasks (the tasks extension), stored so that any replica answers for them. A run is either a
 * bulk run (below) or a tool's run (startRun): a tool's work that the gateway runs in the background, which ends with
 * the tool's answer (`outcome`), or waits for the client's input (status input_required: `inputRequests` still open,
 * `inputResponses` received so far) and is resumed by whichever replica receives the answers (answerRun).
 *
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

export type BulkRunStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** How a tool's run ended: the tool's answer, or a protocol error. Both are the wire's JSON, stored as they are. */
export type RunOutcome = { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } };

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
  /** The tool that answers the run (update_tasks for a bulk run) and the arguments its work runs with (null for a bulk run). */
  tool: string;
  arguments: unknown;
  /** A tool's run, ended: its answer. Null while it runs, and for a bulk run (its answer is made from `results`). */
  outcome: RunOutcome | null;
  /** Waiting for the client (input_required): the requests still open, by key. */
  inputRequests: Record<string, unknown> | null;
  /** Every answer to an input request received so far, by key (a later round sees the earlier answers too). */
  inputResponses: Record<string, unknown> | null;
}

/** A run of either kind (a bulk run, or a tool's run). */
export type RunRecord = BulkRunRecord;

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
    tool: 'update_tasks', arguments: null, outcome: null, inputRequests: null, inputResponses: null,
  };
  await deps.store.bulkRuns.insert(run);
  return run;
}

/** Ends a run in `status`: kept for its time to live from now; nothing is waiting for input any more. */
function ended(run: BulkRunRecord, status: BulkRunStatus, statusMessage: string, now: number): BulkRunRecord {
  return { ...run, status, statusMessage, updatedAt: now, leaseUntil: null, expiresAt: now + BULK_RUN_TTL_MS, inputRequests: null };
}

/** A bulk run has items; a tool's run has none (its arguments are its own). */
const isBulk = (run: BulkRunRecord) => run.items.length > 0;

/** What a run did before it stopped, for its status message. */
const sofar = (run: BulkRunRecord) => (isBulk(run) ? ` after ${progress(run)}; applied: ${applied(run.results)}` : '');

/** A working run whose lease lapsed (its replica stopped): failed, with what it applied. Null when it is alive or ended. */
function lapsed(run: BulkRunRecord, now: number): BulkRunRecord | null {
  if (run.status !== 'working' || (run.leaseUntil ?? 0) > now) return null;
  return ended(run, 'failed', `Stopped: the server running it went away${sofar(run)}`, now);
}

/** Whether a run is still going (working, or waiting for the client's input). */
export const runGoing = (run: Pick<BulkRunRecord, 'status'>) => run.status === 'working' || run.status === 'input_required';

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
export async function getRun(actor: Actor, runId: string, deps: Deps): Promise<BulkRunRecord> {
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
 * Cancels a going run (a bulk one between two batches ; the lock waits for a batch in progress to commit): cancelled, naming the
 * tasks applied before. An ended run stays as it ended.
 */
export async function cancelRun(actor: Actor, runId: string, deps: Deps): Promise<BulkRunRecord> {
  await getRun(actor, runId, deps);
  return deps.store.transaction(async (store) => {
    const run = await store.bulkRuns.lock(runId);
    if (!run) throw unknownRun(runId);
    if (!runGoing(run)) return run;
    const saved = ended(run, 'cancelled', `Cancelled${sofar(run)}`, deps.now());
    await saveRun(store, saved);
    return saved;
  });
}

/** Stores a new run of `tool` with `args` for `actor`'s key; the caller then runs the tool's work (renewRun, parkRun, finishRun). */
export async function startRun(actor: Actor, tool: string, args: unknown, deps: Deps): Promise<BulkRunRecord> {
  const now = deps.now();
  await deps.store.bulkRuns.prune(now);
  const run: BulkRunRecord = {
    id: deps.newId('run'), workspaceId: actor.workspace.id, keyId: actor.key.id, status: 'working', items: [], results: [], statusMessage: null,
    createdAt: now, updatedAt: now, leaseUntil: now + BULK_RUN_LEASE_MS, expiresAt: null, tool, arguments: args, outcome: null, inputRequests: null,
    inputResponses: null,
  };
  await deps.store.bulkRuns.insert(run);
  return run;
}

/** Changes a working run under its row's lock; the run as it is when it is no longer working (cancelled, failed by a reader). */
async function whileWorking(runId: string, deps: Deps, change: (run: BulkRunRecord, now: number) => BulkRunRecord, o: { quiet?: boolean } = {}) {
  return deps.store.transaction(async (store) => {
    const run = await store.bulkRuns.lock(runId);
    if (!run || run.status !== 'working') return run;
    const saved = change(run, deps.now());
    if (o.quiet) await store.bulkRuns.save(saved);
    else await saveRun(store, saved);
    return saved;
  });
}

/** The replica running a run's work renews its lease; answers the run, whose status tells whether to go on. */
export const renewRun = (runId: string, deps: Deps) =>
  whileWorking(runId, deps, (run, now) => ({ ...run, leaseUntil: now + BULK_RUN_LEASE_MS }), { quiet: true });

/** Ends a working run with its tool's outcome (completed with the tool's answer, or failed with a protocol error). */
export const finishRun = (runId: string, outcome: RunOutcome, deps: Deps) =>
  whileWorking(runId, deps, (run, now) =>
    ended({ ...run, outcome }, 'result' in outcome ? 'completed' : 'failed', 'result' in outcome ? 'Completed' : outcome.error.message, now));

/**
 * A working run's tool asks for the client's input: the run waits (input_required) with those requests open. No
 * replica holds it meanwhile (no lease); if the client never answers it is deleted after its time to live.
 */
export const parkRun = (runId: string, inputRequests: Record<string, unknown>, deps: Deps) =>
  whileWorking(runId, deps, (run, now) => ({
    ...run, status: 'input_required', inputRequests, statusMessage: `Waiting for the client's answer to ${Object.keys(inputRequests).join(', ')}`,
    updatedAt: now, leaseUntil: null, expiresAt: now + BULK_RUN_TTL_MS,
  }));

/**
 * The client's answers to a waiting run's input requests (tasks/update): answers to open requests are kept and those
 * requests closed; answers to anything else are ignored. Once no request is open, the run works again and `resume` is
 * true: the caller runs the tool's work again, with every answer received.
 */
export async function answerRun(actor: Actor, runId: string, responses: Record<string, unknown>, deps: Deps): Promise<{ run: BulkRunRecord; resume: boolean }> {
  await getRun(actor, runId, deps);
  return deps.store.transaction(async (store) => {
    const run = await store.bulkRuns.lock(runId);
    if (!run) throw unknownRun(runId);
    const open = run.inputRequests ?? {};
    const answered = Object.keys(responses).filter((k) => Object.hasOwn(open, k));
    if (run.status !== 'input_required' || answered.length === 0) return { run, resume: false };
    const now = deps.now();
    const still = Object.fromEntries(Object.entries(open).filter(([k]) => !answered.includes(k)));
    const inputResponses = { ...run.inputResponses, ...Object.fromEntries(answered.map((k) => [k, responses[k]])) };
    const resume = Object.keys(still).length === 0;
    const saved: BulkRunRecord = resume
      ? { ...run, status: 'working', inputRequests: null, inputResponses, statusMessage: null, updatedAt: now, leaseUntil: now + BULK_RUN_LEASE_MS, expiresAt: null }
      : { ...run, inputRequests: still, inputResponses, statusMessage: `Waiting for the client's answer to ${Object.keys(still).join(', ')}`, updatedAt: now };
    await saveRun(store, saved);
    return { run: saved, resume };
  });
}
