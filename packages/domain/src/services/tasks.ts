import { canSeeBoard, canSeeProject, requireScope, type Actor } from '../access.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import type { Deps } from '../deps.js';
import { DomainError, invalid, missingRef, notFound, rejected } from '../errors.js';
import { job } from '../jobs.js';
import { taskChangeEvents, taskEvent } from './webhook-events.js';
import type { BoardRecord, ChecklistRecord, OutboxJob, ProjectRecord, Repos, StatusRecord, TaskInsert, TaskPatch, TaskRecord, TaskView } from '../ports.js';
import type { WebhookRecord } from '../webhook-ports.js';
import { presentTask, presentTaskSummary } from '../presenters.js';
import { assigneeFilter, filterUserId } from './people.js';
import { richText } from '../rules/text.js';
import { rankBetween } from '../rules/rank.js';
import { checkVersion, withoutVersion, type Versioned, type WriteOptions } from '../versions.js';
import type { Page } from '../schemas/common.js';
import type { CreateTaskInput, ListTasksQuery, MoveTaskInput, Task, TaskSummary, UpdateTaskInput } from '../schemas/task.js';

export const TASK_KEY = /^([A-Za-z][A-Za-z0-9]{0,9})-(\d{1,9})$/;

/** How the store looks a task up by a reference: a key (WEB-12, any case) or an id. */
export const taskRef = (ref: string): { id?: string; key?: string } => (TASK_KEY.test(ref) ? { key: ref.toUpperCase() } : { id: ref });

/** A task by id or key that the actor may see (its project and board visible), or 404. */
export async function visibleTask(actor: Actor, ref: string, repos: Repos): Promise<TaskRecord> {
  return seen(actor, await repos.tasks.view(actor.workspace.id, taskRef(ref))).task;
}

/** The view when the actor may see the task (its project and board), else 404. */
function seen<V extends TaskView>(actor: Actor, view: V | undefined): V {
  if (!view || !canSeeBoard(actor, { projectId: view.task.projectId, memberIds: view.boardMemberIds })) throw notFound('Task');
  return view;
}

/** A task by id or key that the actor may see, or undefined. */
export async function findVisibleTask(actor: Actor, ref: string, repos: Repos): Promise<TaskRecord | undefined> {
  try {
    return await visibleTask(actor, ref, repos);
  } catch (e) {
    if (e instanceof DomainError && e.code === 'not_found') return undefined;
    throw e;
  }
}

/** A task named in a list filter (id or key): its id when the actor may see it, else an id that matches nothing. */
export async function filterTaskId(actor: Actor, ref: string, repos: Repos): Promise<string> {
  return (await findVisibleTask(actor, ref, repos))?.id ?? `missing:${ref}`;
}

function assertActive(task: TaskRecord): void {
  if (task.archivedAt !== null) throw new DomainError('archived', `Task ${task.key} is archived; restore it before changing it`);
}

async function boardFor(actor: Actor, boardId: string, repos: Repos, field: string): Promise<BoardRecord> {
  const board = await repos.boards.get(actor.workspace.id, boardId);
  if (!board || !canSeeBoard(actor, board)) throw missingRef(field, `board ${boardId}`);
  return board;
}

/**
 * The column a write names on `board` (default its first). A column of another board the actor can see breaks a
 * rule (400); a missing or hidden one is 404 like any invisible reference.
 */
async function columnOf(actor: Actor, board: BoardRecord, statusId: string | undefined, repos: Repos, field = 'statusId'): Promise<StatusRecord> {
  if (statusId === undefined) {
    const first = board.statuses[0];
    if (!first) throw rejected(`Board ${board.name} has no columns`);
    return first;
  }
  const status = board.statuses.find((s) => s.id === statusId);
  if (status) return status;
  const elsewhere = await repos.boards.status(actor.workspace.id, statusId);
  const itsBoard = elsewhere ? await repos.boards.get(actor.workspace.id, elsewhere.boardId) : undefined;
  if (itsBoard && canSeeProject(actor, itsBoard.projectId) && canSeeBoard(actor, itsBoard)) {
    throw invalid(field, `column ${statusId} is not on board ${board.id} (${board.name})`);
  }
  throw missingRef(field, `column ${statusId}`);
}

/** 404 naming `field` unless every id is a live person of the workspace; `liveIds`: those already read with the board. */
async function checkUsers(actor: Actor, ids: string[], field: string, repos: Repos, liveIds?: string[]): Promise<void> {
  if (!ids.length) return;
  const live = new Set(liveIds ?? (await repos.users.byIds(actor.workspace.id, ids)).filter((u) => u.deletedAt === null).map((u) => u.id));
  const missing = ids.filter((id) => !live.has(id));
  if (missing.length) throw missingRef(field, `user ${missing.join(', ')}`);
}

async function checkParent(actor: Actor, parentId: string, projectId: string, selfId: string | null, repos: Repos): Promise<string> {
  const parent = await findVisibleTask(actor, parentId, repos);
  if (!parent) throw missingRef('parentId', `task ${parentId}`);
  if (parent.projectId !== projectId) throw rejected('A subtask must be in the same project as its parent');
  if (selfId !== null) {
    const chain = await repos.tasks.ancestors(parent.id);
    if (chain.includes(selfId)) throw rejected('The parent would make a cycle of subtasks');
  }
  return parent.id;
}

const dedupe = <T>(xs: T[]): T[] => [...new Set(xs)];

function checklistItems(items: Array<{ text: string; done: boolean }>, deps: Deps): ChecklistRecord[] {
  return items.map((i) => ({ id: deps.newId('chk'), text: i.text, done: i.done }));
}

function doneAtFor(category: string, previous: number | null, now: number): number | null {
  if (category !== 'done') return null;
  return previous ?? now;
}

/** The full form as stored now (one query: the row, its details and its version). */
async function versioned(actor: Actor | null, task: Pick<TaskRecord, 'id' | 'workspaceId'>, repos: Repos): Promise<Versioned<Task>> {
  const view = await repos.tasks.fullView(task.workspaceId, { id: task.id }, actor?.user.id ?? null);
  if (!view) throw notFound('Task');
  return { data: presentTask(view.task, view.details), version: view.task.version };
}

async function full(actor: Actor | null, task: Pick<TaskRecord, 'id' | 'workspaceId'>, repos: Repos): Promise<Task> {
  return (await versioned(actor, task, repos)).data;
}

/** Creates a task and queues its notifications and automations with the same commit; with the new task's version. */
export async function createTaskVersioned(actor: Actor, input: CreateTaskInput, deps: Deps): Promise<Versioned<Task>> {
  requireScope(actor, 'tasks:write');
  // The checks read first, outside any transaction: under read committed each statement sees what is committed as it
  // starts, inside a transaction or not, and nothing here locks. The common create is then one insert that commits
  // alone; a parent's version or a webhook event make it a transaction.
  const plan = await planTask(actor, input, deps.store, deps);
  const alone = plan.parentId === null && plan.subscriptions.length === 0;
  const result = alone ? await writeTask(actor, plan, deps.store, deps) : await deps.store.transaction((repos) => writeTask(actor, plan, repos, deps));
  deps.jobs.notify();
  return result;
}
export const createTask = withoutVersion(createTaskVersioned);

/**
 * Where a new task goes: `boardId`, else the first board of `projectId` open to the user; with its project, whether
 * the board has task_created rules (undefined: not known, so the automation job is queued anyway) and, read along,
 * which of `userIds` are live people (undefined: not read).
 */
async function placeOf(
  actor: Actor,
  input: CreateTaskInput,
  userIds: string[],
  repos: Repos,
): Promise<{ board: BoardRecord; project: ProjectRecord; createRules?: boolean; liveUserIds?: string[] }> {
  if (input.boardId !== undefined) {
    const place = await repos.boards.placement(actor.workspace.id, input.boardId, userIds);
    if (!place || !canSeeBoard(actor, place.board)) throw missingRef('boardId', `board ${input.boardId}`);
    if (input.projectId !== undefined && input.projectId !== place.board.projectId) {
      throw invalid('projectId', `board ${place.board.id} is not in project ${input.projectId}`);
    }
    return place;
  }
  if (input.projectId === undefined) throw invalid('boardId', 'required: send boardId or projectId');
  const project = await repos.projects.get(actor.workspace.id, input.projectId);
  if (!project || !canSeeProject(actor, project.id)) throw missingRef('projectId', `project ${input.projectId}`);
  const [board] = await repos.boards.byProjects(actor.workspace.id, [project.id], actor.user.id);
  if (!board) throw rejected(`Project ${project.key} has no board; create one first`);
  return { board, project };
}

/** Creates a task inside the caller's transaction, so a task made from a meeting agreement commits with the agreement. */
export async function createTaskIn(actor: Actor, input: CreateTaskInput, repos: Repos, deps: Deps): Promise<Task> {
  return (await writeTask(actor, await planTask(actor, input, repos, deps), repos, deps)).data;
}

/** A checked task create: the row to insert and what goes with it. */
interface TaskPlan {
  task: TaskInsert;
  projectKey: string;
  labels: string[];
  jobs: OutboxJob[];
  parentId: string | null;
  subscriptions: WebhookRecord[];
}

/** Reads and checks everything a create needs, writing nothing; the task's id is chosen here. */
async function planTask(actor: Actor, input: CreateTaskInput, repos: Repos, deps: Deps): Promise<TaskPlan> {
  requireScope(actor, 'tasks:write');
  let assigneeIds = dedupe(input.assigneeIds ?? []);
  if (input.assigneeId !== undefined && !assigneeIds.includes(input.assigneeId)) assigneeIds = [input.assigneeId, ...assigneeIds];
  const { board, project, createRules, liveUserIds } = await placeOf(actor, input, assigneeIds, repos);
  const status = await columnOf(actor, board, input.statusId, repos);
  await checkUsers(actor, assigneeIds, 'assigneeIds', repos, liveUserIds);
  const assigneeId = input.assigneeId ?? assigneeIds[0] ?? null;

  const labels = dedupe(input.labels ?? []);
  const parentId = input.parentId !== undefined ? await checkParent(actor, input.parentId, project.id, null, repos) : null;
  const text = richText(input.description, input.descriptionText) ?? { html: '', text: '' };
  const now = deps.now();
  const id = deps.newId('task');

  const jobs: OutboxJob[] = [];
  // A board without task_created rules would only have the job look for them: it is left out.
  if (createRules !== false) {
    jobs.push(job('automations.task_created', { workspaceId: actor.workspace.id, taskId: id, boardId: board.id, statusId: status.id, actorId: actor.user.id }));
  }
  const notify = assigneeIds.filter((u) => u !== actor.user.id);
  if (notify.length) jobs.push(job('notify.assigned', { workspaceId: actor.workspace.id, taskId: id, actorId: actor.user.id, userIds: notify }));
  // The request's key was read with whether the workspace has any subscription at all: mostly none, and no lookup.
  const subscriptions = actor.webhooks === false ? [] : await repos.webhooks.matching(actor.workspace.id, 'task.created', project.id);
  const task: TaskInsert = {
    id, workspaceId: actor.workspace.id, projectId: project.id, boardId: board.id, statusId: status.id,
    title: input.title, type: input.type ?? 'task', priority: input.priority ?? 'medium',
    assigneeId, assigneeIds, reporterId: actor.user.id, labels, dueDate: input.dueDate ?? null, parentId,
    timeEstimateSeconds: input.timeEstimateSeconds ?? 0, descriptionHtml: text.html, descriptionText: text.text,
    checklist: checklistItems(input.checklist ?? [], deps), archivedAt: null,
    doneAt: doneAtFor(status.category, null, now), createdAt: now, updatedAt: now,
  };
  return { task, projectKey: project.key, labels, jobs, parentId, subscriptions };
}

/**
 * Writes a planned task: the parent's version first, then the task (with its labels and jobs) as the last write, so
 * the project's number counter stays locked only until the commit. A new task has no subtasks, attachments, time
 * logs or linked pages, so its full form needs no read back.
 */
async function writeTask(actor: Actor, plan: TaskPlan, repos: Repos, deps: Deps): Promise<Versioned<Task>> {
  if (plan.parentId !== null) await repos.versions.bump('task', [plan.parentId]); // its subtaskIds changed
  const { task, position } = await repos.tasks.append(plan.task, plan.projectKey, { labels: plan.labels, jobs: plan.jobs });
  await taskEvent(repos, deps, 'task.created', actor.user.id, task, plan.subscriptions);
  return { data: presentTask(task, { subtaskIds: [], attachments: [], timeLogs: [], docIds: [], position }), version: task.version };
}

export async function getTaskVersioned(actor: Actor, ref: string, deps: Deps): Promise<Versioned<Task>> {
  requireScope(actor, 'tasks:read');
  // The row, its visibility and its details in one query.
  const view = seen(actor, await deps.store.tasks.fullView(actor.workspace.id, taskRef(ref), actor.user.id));
  return { data: presentTask(view.task, view.details), version: view.task.version };
}
export const getTask = withoutVersion(getTaskVersioned);

export async function listTasks(actor: Actor, query: ListTasksQuery, deps: Deps): Promise<Page<TaskSummary>> {
  requireScope(actor, 'tasks:read');
  const statusIds = query.statusId ?? [];
  const categories = query.category ?? [];
  if (query.orderBy === 'position' && statusIds.length !== 1) {
    throw invalid('orderBy', 'position order needs statusId (one column)');
  }
  if (query.dueAfter && query.dueBefore && query.dueAfter > query.dueBefore) throw invalid('dueAfter', `must not be after dueBefore (${query.dueBefore})`);
  // One value stays in the single-valued filter fields, which the store can count from its counters.
  const page = await deps.store.tasks.list(
    {
      workspaceId: actor.workspace.id, visibleProjectIds: actor.key.projectIds, userId: actor.user.id,
      projectId: query.projectId, boardId: query.boardId,
      statusId: statusIds.length === 1 ? statusIds[0] : undefined, statusIds: statusIds.length > 1 ? statusIds : undefined,
      category: categories.length === 1 ? categories[0] : undefined, categories: categories.length > 1 ? categories : undefined,
      assigneeId: await assigneeFilter(actor, query.assigneeId, deps.store),
      reporterId: query.reporterId === undefined ? undefined : await filterUserId(actor, query.reporterId, deps.store),
      types: query.type, priorities: query.priority,
      labels: query.label, parentId: query.parentId, dueBefore: query.dueBefore, dueAfter: query.dueAfter, updatedSince: query.updatedSince,
      q: query.q, archived: query.archived, orderBy: query.orderBy,
    },
    { limit: query.limit, after: decodeCursor(query.cursor) },
  );
  return { data: page.rows.map(presentTaskSummary), nextCursor: encodeCursor(page.next), total: page.total };
}

/** Rank that puts a task at `position` (0 = top) of a column. */
async function rankFor(repos: Repos, statusId: string, position: number, taskId: string): Promise<number> {
  let bounds = await repos.tasks.rankAt(statusId, position, taskId);
  let rank = rankBetween(bounds.before, bounds.after);
  if (rank === null) {
    await repos.tasks.renumberColumn(statusId);
    bounds = await repos.tasks.rankAt(statusId, position, taskId);
    rank = rankBetween(bounds.before, bounds.after) ?? 0;
  }
  return rank;
}

export async function updateTaskVersioned(
  actor: Actor, ref: string, input: UpdateTaskInput, deps: Deps, opts?: WriteOptions,
): Promise<Versioned<Task>> {
  requireScope(actor, 'tasks:write');
  const result = await deps.store.transaction(async (repos) => {
    const task = await visibleTask(actor, ref, repos);
    assertActive(task);
    await checkVersion(repos, 'task', task, `Task ${task.key}`, opts);
    const now = deps.now();
    const patch: TaskPatch = { updatedAt: now };
    const jobs: OutboxJob[] = [];
    if (input.title !== undefined) patch.title = input.title;
    if (input.type !== undefined) patch.type = input.type;
    if (input.priority !== undefined) patch.priority = input.priority;
    if (input.dueDate !== undefined) patch.dueDate = input.dueDate;
    if (input.timeEstimateSeconds !== undefined) patch.timeEstimateSeconds = input.timeEstimateSeconds;
    if (input.checklist !== undefined) patch.checklist = checklistItems(input.checklist, deps);
    if (input.labels !== undefined) {
      patch.labels = dedupe(input.labels);
      await repos.labels.ensure(actor.workspace.id, patch.labels);
    }
    const text = richText(input.description, input.descriptionText);
    if (text) {
      patch.descriptionHtml = text.html;
      patch.descriptionText = text.text;
    }

    if (input.boardId !== undefined || input.statusId !== undefined) {
      let board = await boardFor(actor, task.boardId, repos, 'boardId');
      if (input.boardId !== undefined && input.boardId !== task.boardId) {
        board = await boardFor(actor, input.boardId, repos, 'boardId');
        if (board.projectId !== task.projectId) throw rejected('A task can move only to another board of its own project');
      }
      const status = input.statusId !== undefined || board.id !== task.boardId ? await columnOf(actor, board, input.statusId, repos) : undefined;
      if (status) {
        patch.boardId = board.id;
        patch.statusId = status.id;
        patch.rank = await rankFor(repos, status.id, 0, task.id);
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
      await checkUsers(actor, ids, input.assigneeIds !== undefined ? 'assigneeIds' : 'assigneeId', repos);
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

    await repos.tasks.update(task.id, patch);
    if (jobs.length) await repos.outbox.add(jobs);
    await taskChangeEvents(repos, deps, actor.user.id, task, await reloadRecord(task, repos));
    // The old and the new parent show the change in their subtaskIds.
    if (patch.parentId !== undefined && patch.parentId !== task.parentId) {
      await repos.versions.bump('task', [task.parentId, patch.parentId].filter((id): id is string => id !== null));
    }
    return versioned(actor, task, repos);
  });
  deps.jobs.notify();
  return result;
}
export const updateTask = withoutVersion(updateTaskVersioned);

export async function moveTaskVersioned(
  actor: Actor, ref: string, input: MoveTaskInput, deps: Deps, opts?: WriteOptions,
): Promise<Versioned<Task>> {
  requireScope(actor, 'tasks:write');
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
    await repos.tasks.update(task.id, {
      boardId: board.id,
      statusId: status.id,
      rank: await rankFor(repos, status.id, input.position, task.id),
      doneAt: doneAtFor(status.category, task.statusCategory === 'done' ? task.doneAt : null, now),
      updatedAt: now,
    });
    await taskChangeEvents(repos, deps, actor.user.id, task, await reloadRecord(task, repos));
    return versioned(actor, task, repos);
  });
  deps.jobs.notify();
  return result;
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
    await taskEvent(repos, deps, 'task.deleted', actor.user.id, task);
    await repos.tasks.delete(task.id);
  });
  deps.jobs.notify();
}

/** The task's row as it is now, inside the change's transaction (for the events that compare before and after). */
async function reloadRecord(task: TaskRecord, repos: Repos): Promise<TaskRecord> {
  return (await repos.tasks.get(task.workspaceId, { id: task.id })) ?? task;
}

export { assertActive, full as presentFullTask };
