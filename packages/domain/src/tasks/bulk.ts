import { type Deps, DomainError, formatIssues, invalid, missingRef, type Repos, z } from '../shared/index.js';
import { type Actor, canSeeBoard, requireScope } from '../keys/index.js';
import { type BoardRecord, columnByRef } from '../projects/index.js';
import { changeTask } from './change.js';
import { boardFor } from './checks.js';
import { taskRef, visibleTask } from './lookup.js';
import type { TaskRecord } from './ports.js';
import { Task, UpdateTaskInput } from './schema.js';

/**
 * Bulk changes: many PATCHes in one call. Each item gets the answer it would get alone, in order (a later item sees
 * what an earlier one did), with the same activity entries and webhook events, because each goes through the single
 * change's own use case (changeTask). What is done set-wise is only what cannot change an answer: the tasks are read
 * in one query up front, columns are looked up on boards read once, and the whole call is one transaction.
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
 * an item that fails leaves nothing, as its own write is one statement or a savepoint). Runs any slice, so a caller
 * may drive a long call batch by batch and stop between batches.
 */
export async function applyTaskItems(actor: Actor, items: readonly unknown[], deps: Deps, o: ApplyOptions = {}): Promise<BulkTaskResult[]> {
  requireScope(actor, 'tasks:write');
  // One after another: the reads share the call's transaction, which runs one statement at a time anyway.
  const prepared: Prepared[] = [];
  for (const raw of items) prepared.push(await prepareItem(raw, o.prepare, deps));
  const known = await TaskCache.read(actor, prepared.flatMap((p) => ('item' in p ? [p.item.task] : [])), deps.store);
  const boards = new Map<string, BoardRecord>();
  const results: BulkTaskResult[] = [];
  for (const [i, p] of prepared.entries()) {
    let key: string | null = 'item' in p ? p.item.task : p.ref;
    try {
      if ('error' in p) throw p.error;
      const task = await known.get(actor, p.item.task, deps.store);
      key = task.key;
      const input = await withColumn(actor, task, p.item, boards, deps.store);
      // The caller's store is a transaction (bulkUpdateTasks, or a batch's own): each item's statements commit with it.
      const { answer, record } = await changeTask(actor, task.id, input, deps, undefined, {
        known: task, inTransaction: true, boards, renumbered: (statusId) => known.renumbered(statusId),
      });
      known.set(record);
      results.push({ task: record.key, status: 200, data: answer.data });
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      if (o.atomic) throw named(e, (o.offset ?? 0) + i);
      results.push({ task: key, status: e.status, error: { code: e.code, message: e.message } });
    }
  }
  return results;
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

  /** The task as a change left it. */
  set(task: TaskRecord): void {
    this.byRef.set(task.id, task);
    this.byRef.set(task.key, task);
  }
}
