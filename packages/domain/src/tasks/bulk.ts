import { type ActivityRecord, type Deps, DomainError, formatIssues, invalid, missingRef, type Repos, z } from '../shared/index.js';
import { type Actor, canSeeBoard, requireScope } from '../keys/index.js';
import { type BoardRecord, columnByRef } from '../projects/index.js';
import { changeTask, planChange, plannedEntries } from './change.js';
import { assertActive, boardFor } from './checks.js';
import { taskChangeEvents } from './events.js';
import { presentTask } from './present.js';
import { rankBetween } from './rank.js';
import { taskRef, visibleTask } from './lookup.js';
import type { TaskChange, TaskRecord } from './ports.js';
import { Task, UpdateTaskInput } from './schema.js';

/**
 * Bulk changes: many PATCHes in one call. Each item gets the answer it would get alone, in order (a later item sees
 * what an earlier one did), with the same activity entries and webhook events, because each is planned by the single
 * change's own rules (planChange, plannedEntries, taskChangeEvents). What is done set-wise cannot change an answer: the
 * tasks are read in one query, the items planned in memory in order, and written in one statement (applyTaskItems).
 */

export const BULK_MAX_ITEMS = 100;

/** One item: the body of PATCH /tasks/{ref} plus the task and, as move_task names it, a column. */
export const BulkTaskItem = z.strictObject({
  // PATCH's fields spelled out rather than extended, so the document has one closed object, not an allOf of two.
  ...UpdateTaskInput.shape,
  task: z.string().trim().min(1).max(100).openapi({ description: 'Task key (WEB-12) or id', example: 'WEB-12' }),
  column: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .openapi({ description: "Column name, id or category on the task's board (or on `boardId`); the task goes to its top. Not with statusId" }),
}).openapi('BulkTaskItem');
export type BulkTaskItem = z.infer<typeof BulkTaskItem>;

export const BulkTasksInput = z
  .strictObject({
    // Items are checked one by one (a bad item is that item's 400, not the call's); the document names their shape.
    items: z
      .array(z.unknown())
      .min(1, 'send at least one item')
      .max(BULK_MAX_ITEMS, `at most ${BULK_MAX_ITEMS} items`)
      .openapi({ type: 'array', items: { $ref: '#/components/schemas/BulkTaskItem' }, minItems: 1, maxItems: BULK_MAX_ITEMS }),
    atomic: z
      .boolean()
      .default(false)
      .openapi({ description: 'All or nothing: when an item fails, nothing is applied and the call answers that item\'s error' }),
  })
  .openapi('BulkTasksInput');
export type BulkTasksInput = z.infer<typeof BulkTasksInput>;

export const BulkTaskResult = z
  .object({
    task: z.string().nullable().openapi({ description: 'The task key (the reference as sent when the task was not found)' }),
    status: z.number().int().openapi({ description: '200 when applied, else the 4xx the item alone would get' }),
    data: Task.optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  })
  .openapi('BulkTaskResult');
export type BulkTaskResult = z.infer<typeof BulkTaskResult>;

/** Rate-limit points a bulk body spends: one per item (a body refused for its size or shape spends one). */
export function bulkPoints(body: unknown): number {
  const items = (body as { items?: unknown } | null)?.items;
  return Array.isArray(items) && items.length >= 1 && items.length <= BULK_MAX_ITEMS ? items.length : 1;
}

/** An item that failed its schema: the issues, so an atomic call can name them under items[i]. */
export class BulkItemInvalid extends DomainError {
  constructor(readonly issues: z.core.$ZodIssue[]) {
    super('invalid_request', formatIssues(issues as never));
  }
}

export interface ApplyOptions {
  /** All or nothing: the first failing item throws its error, named under items[i] (the caller's transaction rolls back). */
  atomic?: boolean;
  /** Index of the first item in the whole call, for the names in errors when a slice is applied. */
  offset?: number;
  /**
   * Turns an item as the caller sent it into the REST item's shape (MCP: logins to user ids); checked after it. Its
   * reads go through `deps`, the call's transaction (PGlite has one connection: a read outside would wait on it).
   */
  prepare?: (item: unknown, deps: Deps) => Promise<unknown>;
}

/**
 * Bulk change as REST and MCP make it: every item in order, in one transaction (so a call answered 503 stored nothing,
 * and a commit whose answer was lost is 504 like any write). The relay is woken once, after the commit.
 */
export async function bulkUpdateTasks(actor: Actor, input: BulkTasksInput, deps: Deps, o: Pick<ApplyOptions, 'prepare'> = {}): Promise<BulkTaskResult[]> {
  requireScope(actor, 'tasks:write');
  let queued = false;
  const results = await deps.store.transaction((store) =>
    applyTaskItems(actor, input.items, { ...deps, store, jobs: { notify: () => void (queued = true) } }, { ...o, atomic: input.atomic }),
  );
  if (queued) deps.jobs.notify();
  return results;
}

/**
 * Applies a slice of a bulk call's items in order, each as PATCH would alone, in the caller's store (a transaction:
 * an item that fails leaves nothing). Runs any slice, so a caller may drive a long call batch by batch and stop
 * between batches.
 *
 * Set-wise: the tasks are read in one query up front; then a run of consecutive items naming distinct tasks (a wave)
 * is planned in memory with PATCH's own rules (planChange: the columns' tops and the named people each read once for
 * the wave) and written in one statement (tasks.updateViews), each row guarded by the version its plan read. An item
 * whose task changed meanwhile is planned and written again alone. An item that names a task an earlier item of the
 * wave names starts the next wave (it sees what the earlier one did); an item with a parent or another board is made
 * alone, as PATCH makes it, between waves.
 */
export async function applyTaskItems(actor: Actor, items: readonly unknown[], deps: Deps, o: ApplyOptions = {}): Promise<BulkTaskResult[]> {
  requireScope(actor, 'tasks:write');
  // One after another: the reads share the call's transaction, which runs one statement at a time anyway.
  const prepared: Prepared[] = [];
  for (const raw of items) prepared.push(await prepareItem(raw, o.prepare, deps));
  const known = await TaskCache.read(actor, prepared.flatMap((p) => ('item' in p ? [p.item.task] : [])), deps.store);
  const call: Call = { actor, deps, known, boards: new Map(), results: [], o };
  for (let i = 0; i < prepared.length;) {
    const wave = await gather(call, prepared, i);
    if (wave.length) {
      await applyWave(call, wave);
      i += wave.length;
    } else {
      await applyAlone(call, prepared[i]!, i);
      i++;
    }
  }
  return call.results;
}

/** What every item of one call shares. */
interface Call {
  actor: Actor;
  deps: Deps;
  known: TaskCache;
  boards: Map<string, BoardRecord>;
  results: BulkTaskResult[];
  o: ApplyOptions;
}

/** An item of a wave: its task and change, or the refusal it met on the way (answered in its turn). */
type WaveItem = { i: number; task: TaskRecord; input: UpdateTaskInput } | { i: number; error: unknown; key: string | null };

/** Refuses item `i` as it would be alone: the call's error when atomic, else its answer. */
function refuse(call: Call, i: number, key: string | null, e: unknown): void {
  if (!(e instanceof DomainError)) throw e;
  if (call.o.atomic) throw named(e, (call.o.offset ?? 0) + i);
  call.results[i] = { task: key, status: e.status, error: { code: e.code, message: e.message } };
}

/** An item made alone, as PATCH makes it (in the call's transaction). */
async function applyAlone(call: Call, p: Prepared, i: number, fresh = false): Promise<void> {
  const { actor, deps, known, boards } = call;
  let key: string | null = 'item' in p ? p.item.task : p.ref;
  try {
    if ('error' in p) throw p.error;
    const task = await known.get(actor, p.item.task, deps.store);
    key = task.key;
    const input = await withColumn(actor, task, p.item, boards, deps.store);
    // `fresh`: the task changed since it was read (a wave's guard did not hold); the change reads it again.
    const { answer, record } = await changeTask(actor, task.id, input, deps, undefined, {
      ...(fresh ? {} : { known: task }), inTransaction: true, boards, renumbered: (statusId) => known.renumbered(statusId), position: true,
    });
    known.set(record);
    call.results[i] = { task: record.key, status: 200, data: answer.data };
  } catch (e) {
    refuse(call, i, key, e);
  }
}

/**
 * The wave that starts at item `start`: the items up to the first that must be made alone (a parent, another board)
 * or that names a task already in the wave. Empty when item `start` itself must be made alone.
 */
async function gather(call: Call, prepared: readonly Prepared[], start: number): Promise<WaveItem[]> {
  const { actor, deps, known, boards } = call;
  const wave: WaveItem[] = [];
  const taskIds = new Set<string>();
  for (let i = start; i < prepared.length; i++) {
    const p = prepared[i]!;
    if ('error' in p) {
      wave.push({ i, error: p.error, key: p.ref });
      continue;
    }
    if (p.item.parentId !== undefined || p.item.boardId !== undefined) break;
    let key = p.item.task;
    try {
      const task = await known.get(actor, p.item.task, deps.store);
      key = task.key;
      if (taskIds.has(task.id)) break;
      taskIds.add(task.id);
      wave.push({ i, task, input: await withColumn(actor, task, p.item, boards, deps.store) });
    } catch (e) {
      wave.push({ i, error: e, key });
    }
  }
  return wave;
}

/** Where a task of the call stands as the wave's earlier items leave it. */
interface Place {
  id: string;
  statusId: string;
  rank: number;
  active: boolean;
}
const above = (a: Place, b: Place) => a.rank < b.rank || (a.rank === b.rank && a.id < b.id);

/** Plans every item of a wave in order, writes them in one statement, and answers each. */
async function applyWave(call: Call, wave: WaveItem[]): Promise<void> {
  const { actor, deps, known, boards } = call;
  const changes = wave.flatMap((w) => ('task' in w ? [w.input] : []));
  // What PATCH reads per change, read once for the wave: the people the changes name, the tops of their columns.
  const named = [...new Set(changes.flatMap((c) => [...(c.assigneeIds ?? []), ...(c.assigneeId ? [c.assigneeId] : [])]))];
  const liveUserIds = named.length
    ? (await deps.store.users.byIds(actor.workspace.id, named)).filter((u) => u.deletedAt === null).map((u) => u.id)
    : [];
  // The call's tasks (those read up front or changed by it, and the wave's own), whose places are counted in memory.
  const records = new Map(known.records().map((t) => [t.id, t]));
  for (const w of wave) if ('task' in w && !records.has(w.task.id)) records.set(w.task.id, w.task);
  const columns = [...new Set(changes.flatMap((c) => (c.statusId !== undefined ? [c.statusId] : [])))];
  const tops = columns.length ? await deps.store.tasks.columnTops(columns, [...records.keys()]) : new Map<string, number | null>();
  // Where the wave's earlier items leave them: a column's top, and a task's position, count them so.
  const read = new Map<string, Place>([...records.values()].map((t) => [t.id, { id: t.id, statusId: t.statusId, rank: t.rank, active: t.archivedAt === null }]));
  const places = new Map(read);
  const ahead = (of: Map<string, Place>, place: Place) => {
    let n = 0;
    for (const p of of.values()) if (p.id !== place.id && p.active && p.statusId === place.statusId && above(p, place)) n++;
    return n;
  };
  const top = (statusId: string, taskId: string) => {
    let first = tops.get(statusId) ?? null;
    for (const p of places.values()) if (p.statusId === statusId && p.active && p.id !== taskId && (first === null || p.rank < first)) first = p.rank;
    return rankBetween(null, first) ?? 0;
  };

  const planned: Array<{ i: number; task: TaskRecord; input: UpdateTaskInput; change: TaskChange; shift: number }> = [];
  for (const w of wave) {
    if ('error' in w) {
      refuse(call, w.i, w.key, w.error);
      continue;
    }
    const { task, input } = w;
    try {
      assertActive(task);
      const { patch, jobs, status } = await planChange(actor, task, input, deps.store, deps, { boards, top, liveUserIds });
      const { entry, moved } = plannedEntries(deps, actor, task, patch, status);
      const place = { id: task.id, statusId: patch.statusId ?? task.statusId, rank: patch.rank ?? task.rank, active: true };
      places.set(task.id, place);
      // The statement counts the tasks above the new place as they were before it: the call's tasks are counted
      // where this item leaves them instead, the earlier items' moves made and the later ones' not yet.
      const shift = ahead(places, place) - ahead(read, place);
      const activity = [entry, moved].filter((e): e is ActivityRecord => e !== undefined);
      planned.push({ i: w.i, task, input, change: { id: task.id, version: task.version, patch, jobs, activity }, shift });
    } catch (e) {
      refuse(call, w.i, task.key, e);
    }
  }
  if (!planned.length) return;

  const views = await deps.store.tasks.updateViews(planned.map((p) => p.change), actor.user.id, { workspaceId: actor.workspace.id });
  let queued = planned.some((p, k) => views[k] !== undefined && p.change.jobs.length > 0);
  const again: typeof planned = [];
  for (const [k, p] of planned.entries()) {
    const view = views[k];
    if (!view) {
      again.push(p);
      continue;
    }
    const [entry, moved] = [p.change.activity.find((e) => e.action === 'task.updated'), p.change.activity.find((e) => e.action === 'task.moved')];
    if (await taskChangeEvents(deps.store, deps, actor, p.task, view.task, entry, moved)) queued = true;
    const details = { ...view.details, position: view.details.position === null ? null : view.details.position + p.shift };
    known.set(view.task);
    call.results[p.i] = { task: view.task.key, status: 200, data: presentTask(view.task, details) };
  }
  if (queued) deps.jobs.notify();
  // Changed meanwhile (by another call since the wave read it): planned and made again alone, on the task as it is now.
  for (const p of again) await applyAlone(call, { item: { ...p.input, task: p.task.id } as BulkTaskItem }, p.i, true);
}

type Prepared = { item: BulkTaskItem } | { error: DomainError; ref: string | null };

async function prepareItem(raw: unknown, prepare: ApplyOptions['prepare'], deps: Deps): Promise<Prepared> {
  const ref = typeof (raw as { task?: unknown } | null)?.task === 'string' ? (raw as { task: string }).task.trim() : null;
  try {
    const parsed = BulkTaskItem.safeParse(prepare ? await prepare(raw, deps) : raw);
    if (!parsed.success) return { error: new BulkItemInvalid(parsed.error.issues), ref };
    return { item: parsed.data };
  } catch (e) {
    if (e instanceof DomainError) return { error: e, ref };
    throw e;
  }
}

/** The item's change with its column named as a column id (statusId): PATCH's move to the top of that column. */
async function withColumn(actor: Actor, task: TaskRecord, item: BulkTaskItem, boards: Map<string, BoardRecord>, repos: Repos) {
  const { task: _ref, column, ...input } = item;
  if (column === undefined) return input;
  if (input.statusId !== undefined) throw invalid('column', 'send column or statusId, not both');
  const boardId = input.boardId ?? task.boardId;
  let board = boards.get(boardId);
  if (!board) {
    board = await boardFor(actor, boardId, repos, 'boardId');
    boards.set(boardId, board);
  }
  return { ...input, statusId: columnByRef(board, column, 'column').id };
}

/** The error of item `i` for the whole call: its fields named under items[i]. */
function named(e: DomainError, i: number): DomainError {
  const at = `items[${i}]`;
  if (e instanceof BulkItemInvalid) return new DomainError(e.code, formatIssues(e.issues as never, at));
  const field = /^([A-Za-z][\w.[\]]*): /.exec(e.message);
  return new DomainError(e.code, field ? `${at}.${e.message}` : `${at}: ${e.message}`);
}

/** The tasks a call names, read in one query, as the call's earlier items left them. */
class TaskCache {
  /** The references read up front: one of them not in byRef is missing or invisible (a call creates no task). */
  private asked = new Set<string>();
  private readonly byRef = new Map<string, TaskRecord>();

  /** The visible tasks among `refs` (keys or ids), in one query; the others are missing, as for a 404. */
  static async read(actor: Actor, refs: string[], repos: Repos): Promise<TaskCache> {
    const ids: string[] = [];
    const keys: string[] = [];
    for (const ref of new Set(refs)) {
      const r = taskRef(ref);
      if (r.key) keys.push(r.key);
      else ids.push(ref);
    }
    const views = await repos.tasks.views(actor.workspace.id, { ids, keys });
    const cache = new TaskCache();
    cache.asked = new Set([...ids, ...keys]);
    for (const v of views) if (canSeeBoard(actor, { projectId: v.task.projectId, memberIds: v.boardMemberIds })) cache.set(v.task);
    return cache;
  }

  async get(actor: Actor, ref: string, repos: Repos): Promise<TaskRecord> {
    const r = taskRef(ref);
    const hit = this.byRef.get(r.key ?? ref);
    if (hit) return hit;
    if (this.asked.has(r.key ?? ref)) throw missingRef('task', `task ${ref}`);
    try {
      // Not read up front (missing or invisible), or stale after a move: read as a single PATCH reads it.
      return await visibleTask(actor, ref, repos);
    } catch (e) {
      if (e instanceof DomainError && e.code === 'not_found') throw missingRef('task', `task ${ref}`);
      throw e;
    }
  }

  /**
   * A column's ranks were redone to place a task: its tasks are read again when named (their ranks as read are stale,
   * and a change of one would look like a move).
   */
  renumbered(statusId: string): void {
    for (const [ref, t] of this.byRef) if (t.statusId === statusId) this.byRef.delete(ref);
    this.asked.clear();
  }

  /** The tasks the call has read or changed, as it last had them. */
  records(): TaskRecord[] {
    return [...new Set(this.byRef.values())];
  }

  /** The task as a change left it. */
  set(task: TaskRecord): void {
    this.byRef.set(task.id, task);
    this.byRef.set(task.key, task);
  }
}
