import { type ActivityRecord, type Deps, DomainError, job, missingRef, type OutboxJob, rejected, type Repos, richText } from '../shared/index.js';
import { type Actor, canSeeBoard, requireScope } from '../keys/index.js';
import { checkSeenVersion, checkVersion, type Versioned, withoutVersion, type WriteOptions } from '../versions/index.js';
import {
  assertActive, boardFor, checklistItems, checkParent, checkUsers, columnOf, dedupe, doneAtFor, rankFor,
  written,
} from './checks.js';
import { changeEntry, moveEntry, taskChangeEvents, taskEvent } from './events.js';
import { seen, taskRef, visibleTask } from './lookup.js';
import { presentTask } from './present.js';
import type { PositionOption, TaskPatch, TaskRecord, TaskView } from './ports.js';
import type { MoveTaskInput, Task, UpdateTaskInput } from './schema.js';
import type { BoardRecord, StatusRecord } from '../projects/index.js';

/** A change of a task's fields, answered with its full form; its position in its column only when asked for (`o.position`). */
export async function updateTaskVersioned(
  actor: Actor, ref: string, input: UpdateTaskInput, deps: Deps, opts?: WriteOptions, o: PositionOption = {},
): Promise<Versioned<Task>> {
  return (await changeTask(actor, ref, input, deps, opts, { position: o.position === true })).answer;
}

/** How a caller that changes many tasks runs each change (see changeTask). */
export interface ChangeContext {
  /** The task as the caller has just read it in the same store: the guarded edit starts from it instead of reading it again. */
  known?: TaskRecord;
  /**
   * The caller's store is a transaction that commits or rolls back the whole: the guarded edit may then also move the
   * task and record webhook events, as its several statements commit together anyway.
   */
  inTransaction?: boolean;
  /** Boards already read in the caller's transaction, by id (a bulk change names a few boards many times). */
  boards?: Map<string, BoardRecord>;
  /** Hears when placing the task renumbered a column: the ranks of its other tasks, as the caller read them, are stale. */
  renumbered?: (statusId: string) => void;
  /**
   * The rank at the top of a column, the task itself left out, as the caller knows the column (a bulk change places
   * many tasks from one read of the columns' tops); without it the rank is read.
   */
  top?: (statusId: string, taskId: string) => number;
  /** The live people of the workspace among every id the caller's changes name, read once by the caller. */
  liveUserIds?: string[];
  /** The answer carries the task's position in its column (a count of the tasks above it); default not. */
  position?: boolean;
}

/**
 * updateTask's work, answering the task's record too (a bulk change hands it to the next item on the same task).
 * The guarded edit's version check still catches a change made meanwhile to a `known` task.
 */
export async function changeTask(
  actor: Actor, ref: string, input: UpdateTaskInput, deps: Deps, opts?: WriteOptions, ctx: ChangeContext = {},
): Promise<{ answer: Versioned<Task>; record: TaskRecord }> {
  requireScope(actor, 'tasks:write');
  // An edit of the task's own fields, in a workspace without webhook subscriptions, is one statement that commits
  // alone, guarded by the version it was planned on (which is also how If-Match is checked); a task changed meanwhile
  // is read and planned again. Inside the caller's transaction a move and webhook events may join it (a new parent
  // still bumps the parents' versions below).
  //
  // The first plan is made on the task as this process last read or changed it, when it has it: the change then also
  // checks that the task's board still has the members the plan saw, and writes nothing if not (or if the version
  // moved). Such a plan gives no refusal of its own: whatever it would refuse is planned again on a fresh read.
  const own = input.boardId === undefined && input.statusId === undefined && actor.webhooks === false;
  const alone = input.parentId === undefined && (own || ctx.inTransaction === true);
  let source: TaskSource = ctx.known ? { known: ctx.known } : { ref, kept: true };
  for (let tries = 0; alone && tries < 3; tries++) {
    const done = await editAlone(actor, source, input, deps, ctx, opts);
    if (done && 'answer' in done) return done;
    source = done ? { now: done.now } : { ref, kept: false };
  }
  const result = await deps.store.transaction(async (repos) => {
    const task = await visibleTask(actor, ref, repos);
    assertActive(task);
    await checkVersion(repos, 'task', task, `Task ${task.key}`, opts);
    const { patch, jobs } = await planChange(actor, task, input, repos, deps, ctx);
    if (patch.labels) await repos.labels.ensure(actor.workspace.id, patch.labels);
    // The change and the read of its result are one statement.
    const after = await written(actor, task, repos, patch, { position: ctx.position === true });
    if (jobs.length) await repos.outbox.add(jobs);
    const queued = jobs.length + (await taskChangeEvents(repos, deps, actor, task, after.record));
    // The old and the new parent show the change in their subtaskIds.
    if (patch.parentId !== undefined && patch.parentId !== task.parentId) {
      await repos.versions.bump('task', [task.parentId, patch.parentId].filter((id): id is string => id !== null));
    }
    return { answer: after.answer, record: after.record, queued };
  });
  // The relay is woken only for a commit that queued jobs: a pass that finds nothing is three round trips for naught.
  if (result.queued) deps.jobs.notify();
  return { answer: result.answer, record: result.record };
}

/**
 * Where a one-statement change takes its task from: by reference (`kept`: as this process last had it, when it has
 * it), as the caller read it, or as the statement of an attempt that changed nothing found it.
 */
type TaskSource = { ref: string; kept: boolean } | { known: TaskRecord } | { now: TaskView };

/** The task a source gives, the actor's right to see it checked (a caller's own read was checked by the caller). */
async function taskFrom(actor: Actor, source: TaskSource, deps: Deps): Promise<{ task: TaskRecord; view?: TaskView & { kept?: true } }> {
  if ('known' in source) return { task: source.known };
  const view = 'now' in source ? source.now : await deps.store.tasks.view(actor.workspace.id, taskRef(source.ref), source.kept);
  return { task: seen(actor, view).task, view: view! };
}

/**
 * The edit as one statement: the task from its source, the change planned on it, then the change with its new labels,
 * its jobs and its activity entry, guarded by the version read (and a kept task's board members). When the task
 * changed meanwhile nothing is written, and the answer is the task as that statement found it (a plan on a kept task)
 * or undefined; undefined too when a plan on a kept task would refuse.
 */
async function editAlone(
  actor: Actor, source: TaskSource, input: UpdateTaskInput, deps: Deps, ctx: ChangeContext, opts: WriteOptions | undefined,
): Promise<{ answer: Versioned<Task>; record: TaskRecord } | { now: TaskView } | undefined> {
  let remembered = false;
  let plan: Awaited<ReturnType<typeof planChange>> & { task: TaskRecord; view?: TaskView };
  try {
    const { task, view } = await taskFrom(actor, source, deps);
    remembered = view?.kept === true;
    assertActive(task);
    checkSeenVersion(task, `Task ${task.key}`, opts);
    plan = { ...(await planChange(actor, task, input, deps.store, deps, ctx)), task, ...(view ? { view } : {}) };
  } catch (err) {
    if (remembered && err instanceof DomainError) return undefined;
    throw err;
  }
  const { task, view, patch, jobs, status } = plan;
  const { entry, moved } = plannedEntries(deps, actor, task, patch, status);
  let now: TaskView | undefined;
  const changed = await deps.store.tasks.updateView(task.id, patch, actor.user.id, {
    version: task.version, labels: patch.labels && { workspaceId: actor.workspace.id, names: patch.labels }, jobs,
    activity: [entry, moved].filter((e) => e !== undefined), position: ctx.position === true,
    ...(remembered && view ? { boardMemberIds: view.boardMemberIds, current: (v: TaskView) => void (now = v) } : {}),
  });
  if (!changed) return now ? { now } : undefined;
  const queued = await taskChangeEvents(deps.store, deps, actor, task, changed.task, entry, moved);
  if (jobs.length || queued) deps.jobs.notify();
  return { answer: { data: presentTask(changed.task, changed.details), version: changed.task.version }, record: changed.task };
}

/**
 * The activity entries a change planned on `task` makes (its task.updated and task.moved, each when there is one):
 * what the guarded change makes of this very version, the task as read with the patch's values.
 */
export function plannedEntries(
  deps: Pick<Deps, 'newId' | 'now'>, actor: Actor, task: TaskRecord, patch: TaskPatch, status: StatusRecord | undefined,
): { entry: ActivityRecord | undefined; moved: ActivityRecord | undefined } {
  const planned = { ...task, ...patch, ...(status ? { statusName: status.name, statusCategory: status.category } : {}) };
  return { entry: changeEntry(deps, actor, task, planned), moved: moveEntry(deps, actor, task, planned) };
}

/**
 * Reads and checks what an update needs and makes its patch and jobs, writing nothing. What `ctx` holds is not read
 * again (boards, the columns' tops, the live people).
 */
export async function planChange(
  actor: Actor, task: TaskRecord, input: UpdateTaskInput, repos: Repos, deps: Deps, { boards, renumbered, top, liveUserIds }: ChangeContext = {},
): Promise<{ patch: TaskPatch; jobs: OutboxJob[]; status?: StatusRecord }> {
  const boardOf = async (id: string) => {
    const board = boards?.get(id) ?? (await boardFor(actor, id, repos, 'boardId'));
    boards?.set(id, board);
    return board;
  };
  const now = deps.now();
  const patch: TaskPatch = { updatedAt: now };
  const jobs: OutboxJob[] = [];
  if (input.title !== undefined) patch.title = input.title;
  if (input.type !== undefined) patch.type = input.type;
  if (input.priority !== undefined) patch.priority = input.priority;
  if (input.dueDate !== undefined) patch.dueDate = input.dueDate;
  if (input.timeEstimateSeconds !== undefined) patch.timeEstimateSeconds = input.timeEstimateSeconds;
  if (input.checklist !== undefined) patch.checklist = checklistItems(input.checklist, deps);
  if (input.labels !== undefined) patch.labels = dedupe(input.labels);
  const text = richText(input.description, input.descriptionText);
  if (text) {
    patch.descriptionHtml = text.html;
    patch.descriptionText = text.text;
  }

  // The column the task goes to, when it moves: its name and category are the moved task's.
  let placed: StatusRecord | undefined;
  if (input.boardId !== undefined || input.statusId !== undefined) {
    let board = await boardOf(task.boardId);
    if (input.boardId !== undefined && input.boardId !== task.boardId) {
      board = await boardOf(input.boardId);
      if (board.projectId !== task.projectId) throw rejected('A task can move only to another board of its own project');
    }
    const status = input.statusId !== undefined || board.id !== task.boardId ? await columnOf(actor, board, input.statusId, repos) : undefined;
    if (status) {
      placed = status;
      patch.boardId = board.id;
      patch.statusId = status.id;
      patch.rank = top ? top(status.id, task.id) : await rankFor(repos, status.id, 0, task.id, renumbered);
      patch.doneAt = doneAtFor(status.category, task.statusCategory === 'done' ? task.doneAt : null, now);
    }
  }

  if (input.assigneeIds !== undefined || input.assigneeId !== undefined) {
    let ids = input.assigneeIds !== undefined ? dedupe(input.assigneeIds) : task.assigneeIds;
    let holder = task.assigneeId;
    if (input.assigneeId !== undefined) {
      holder = input.assigneeId;
      if (holder !== null && !ids.includes(holder)) ids = [holder, ...ids];
    } else if (holder === null || !ids.includes(holder)) {
      holder = ids[0] ?? null;
    }
    await checkUsers(actor, ids, input.assigneeIds !== undefined ? 'assigneeIds' : 'assigneeId', repos, liveUserIds);
    patch.assigneeIds = ids;
    patch.assigneeId = holder;
    const added = ids.filter((id) => !task.assigneeIds.includes(id) && id !== actor.user.id);
    if (added.length) {
      jobs.push(job('notify.assigned', { workspaceId: actor.workspace.id, taskId: task.id, actorId: actor.user.id, userIds: added }));
    }
  }

  if (input.parentId !== undefined) {
    patch.parentId = input.parentId === null ? null : await checkParent(actor, input.parentId, task.projectId, task.id, repos);
    if (patch.parentId === task.id) throw rejected('A task cannot be its own parent');
  }
  return placed ? { patch, jobs, status: placed } : { patch, jobs };
}

export const updateTask = withoutVersion(updateTaskVersioned);
export async function moveTaskVersioned(
  actor: Actor, ref: string, input: MoveTaskInput, deps: Deps, opts?: WriteOptions,
): Promise<Versioned<Task>> {
  requireScope(actor, 'tasks:write');
  // A move to the top of another column of the task's own board (the place a move goes by default), in a workspace
  // without webhook subscriptions, is one statement that commits alone (see moveAlone). Any other move is a transaction.
  let source: TaskSource = { ref, kept: true };
  for (let tries = 0; actor.webhooks === false && input.position === 0 && tries < 3; tries++) {
    const done = await moveAlone(actor, source, input, deps, opts, tries === 0);
    if (done === 'elsewhere') break;
    if (done && 'data' in done) return done;
    source = done ? { now: done.now } : { ref, kept: false };
  }
  const result = await deps.store.transaction(async (repos) => {
    const task = await visibleTask(actor, ref, repos);
    assertActive(task);
    await checkVersion(repos, 'task', task, `Task ${task.key}`, opts);
    let board = await boardFor(actor, task.boardId, repos, 'boardId');
    if (input.boardId !== undefined && input.boardId !== task.boardId) {
      board = await boardFor(actor, input.boardId, repos, 'boardId');
      if (board.projectId !== task.projectId) throw rejected('A task can move only to another board of its own project');
    }
    const status = await columnOf(actor, board, input.statusId, repos);
    const now = deps.now();
    const after = await written(actor, task, repos, {
      boardId: board.id,
      statusId: status.id,
      rank: await rankFor(repos, status.id, input.position, task.id),
      doneAt: doneAtFor(status.category, task.statusCategory === 'done' ? task.doneAt : null, now),
      updatedAt: now,
    });
    return { answer: after.answer, queued: await taskChangeEvents(repos, deps, actor, task, after.record) };
  });
  if (result.queued) deps.jobs.notify();
  return result.answer;
}

/**
 * A move to the top of another column of the same board as one statement: the task and its board as this process last
 * had them (`kept`; else read afresh), then the change, whose rank the statement finds (the column's first, one step
 * up), with its activity entries, guarded by the task's version and the board's placement stamp. Undefined when either
 * changed meanwhile, or when a plan on what memory had would refuse: nothing was written. 'elsewhere': not such a move.
 */
async function moveAlone(
  actor: Actor, source: TaskSource, input: MoveTaskInput, deps: Deps, opts: WriteOptions | undefined, kept: boolean,
): Promise<Versioned<Task> | { now: TaskView } | 'elsewhere' | undefined> {
  let remembered = false;
  let view: (TaskView & { kept?: true }) | undefined;
  let plan: { task: TaskRecord; status: StatusRecord; stamp: string | undefined };
  try {
    const from = await taskFrom(actor, source, deps);
    const task = from.task;
    view = from.view;
    remembered = view?.kept === true;
    if (input.boardId !== undefined && input.boardId !== task.boardId) return 'elsewhere';
    assertActive(task);
    checkSeenVersion(task, `Task ${task.key}`, opts);
    const place = await deps.store.boards.placement(actor.workspace.id, task.boardId, [], kept);
    remembered ||= place?.check !== undefined;
    if (!place || !canSeeBoard(actor, place.board)) throw missingRef('boardId', `board ${task.boardId}`);
    const status = await columnOf(actor, place.board, input.statusId, deps.store);
    // A new place in the same column is a position the statement does not compute: the transaction does it.
    if (status.id === task.statusId) return 'elsewhere';
    plan = { task, status, stamp: place.check?.stamp };
  } catch (err) {
    if (remembered && err instanceof DomainError) return undefined;
    throw err;
  }
  const { task, status, stamp } = plan;
  const at = deps.now();
  const patch: TaskPatch = {
    boardId: task.boardId, statusId: status.id, doneAt: doneAtFor(status.category, task.statusCategory === 'done' ? task.doneAt : null, at), updatedAt: at,
  };
  // The entries a move to another column makes do not depend on the rank: the column's id and name say it.
  const planned = { ...task, ...patch, statusName: status.name, statusCategory: status.category };
  const entry = changeEntry(deps, actor, task, planned);
  const moved = moveEntry(deps, actor, task, planned);
  let now: TaskView | undefined;
  const changed = await deps.store.tasks.updateView(task.id, patch, actor.user.id, {
    version: task.version, toTop: true, activity: [entry, moved].filter((e) => e !== undefined),
    ...(view?.kept ? { boardMemberIds: view.boardMemberIds } : {}),
    ...(stamp !== undefined ? { placementStamp: stamp } : {}),
    ...(remembered ? { current: (v: TaskView) => void (now = v) } : {}),
  });
  if (!changed) return now ? { now } : undefined;
  const queued = await taskChangeEvents(deps.store, deps, actor, task, changed.task, entry, moved);
  if (queued) deps.jobs.notify();
  return { data: presentTask(changed.task, changed.details), version: changed.task.version };
}

export const moveTask = withoutVersion(moveTaskVersioned);
export async function deleteTask(actor: Actor, ref: string, deps: Deps, opts?: WriteOptions): Promise<void> {
  requireScope(actor, 'tasks:write');
  await deps.store.transaction(async (repos) => {
    const task = await visibleTask(actor, ref, repos);
    assertActive(task);
    await checkVersion(repos, 'task', task, `Task ${task.key}`, opts);
    // What the others show changes with the task gone: the parent's subtaskIds, the subtasks' parentId, the pages' taskIds.
    const { subtaskIds, docIds } = await repos.tasks.details(task, null);
    await repos.versions.bump('task', task.parentId === null ? subtaskIds : [task.parentId, ...subtaskIds]);
    await repos.versions.bump('doc', docIds);
    await taskEvent(repos, deps, 'task.deleted', actor, task);
    await repos.tasks.delete(task.id);
  });
  deps.jobs.notify();
}
