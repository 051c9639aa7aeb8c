import {
  activityEntry, type Deps, DomainError, invalid, job, missingRef, type OutboxJob, rejected, type Repos, richText,
} from '../shared/index.js';
import { type Actor, canSeeBoard, canSeeProject, requireScope } from '../keys/index.js';
import type { BoardRecord, PlacementCheck, ProjectRecord } from '../projects/index.js';
import { type Versioned, withoutVersion } from '../versions/index.js';
import type { WebhookRecord } from '../webhooks/index.js';
import { checklistItems, checkUsers, columnOf, dedupe, doneAtFor, type ParentCheck, parentFor } from './checks.js';
import { taskCreatedChanges } from './activity.js';
import { taskEvent } from './events.js';
import type { TaskInsert } from './ports.js';
import { presentTask } from './present.js';
import type { CreateTaskInput, Task } from './schema.js';

/** Creates a task and queues its notifications and automations with the same commit; with the new task's version. */
export async function createTaskVersioned(actor: Actor, input: CreateTaskInput, deps: Deps): Promise<Versioned<Task>> {
  requireScope(actor, 'tasks:write');
  // The checks read first, outside any transaction: under read committed each statement sees what is committed as it
  // starts, inside a transaction or not, and nothing here locks. The create is then one insert that commits alone,
  // which also moves a parent's version (guarded by the version the plan read); a webhook event makes it a transaction.
  //
  // In a workspace without webhook subscriptions a create is first planned on the board (and parent) as this process
  // last read them: the insert checks that what the plan used still holds and writes nothing if not. A miss, a changed
  // board or parent, or a check that failed on what memory said is planned again on a fresh read, as before. (A
  // refusal, a DomainError, is not trusted from memory either: the fresh plan gives the answer.)
  for (let tries = 0; actor.webhooks === false && tries < 3; tries++) {
    const kept = tries === 0;
    const plan = await planTask(actor, input, deps.store, deps, kept).catch((err: unknown) => {
      if (kept && err instanceof DomainError) return undefined;
      throw err;
    });
    const result = plan && (await writeTask(actor, plan, deps.store, deps, true));
    if (plan && result) return done(plan, result, deps);
  }
  const plan = await planTask(actor, input, deps.store, deps);
  const alone = plan.parent === null && plan.subscriptions.length === 0;
  const result = alone ? await writeTask(actor, plan, deps.store, deps, false) : await deps.store.transaction((repos) => writeTask(actor, plan, repos, deps, false));
  return done(plan, written(result), deps);
}

/** The relay is told when a create queued jobs of its own (notifications, automations) or webhook deliveries. */
function done(plan: TaskPlan, result: Versioned<Task>, deps: Deps): Versioned<Task> {
  if (plan.jobs.length || plan.subscriptions.length) deps.jobs.notify();
  return result;
}

/** A write planned on a fresh read, without guards, always writes: only a kept placement's check or a parent's guard can stop it. */
function written<T>(result: T | undefined): T {
  if (result === undefined) throw new Error('a task planned on a fresh read was not written');
  return result;
}

export const createTask = withoutVersion(createTaskVersioned);
/**
 * Where a new task goes: `boardId`, else the first board of `projectId` open to the user; with its project, whether
 * the board has task_created rules (undefined: not known, so the automation job is queued anyway) and, read along,
 * which of `userIds` are live people (undefined: not read). `kept`: the board may come from memory, with the check the
 * insert makes of it (for a create by project, also that no board of the project before it is open to the user).
 */
async function placeOf(
  actor: Actor,
  input: CreateTaskInput,
  userIds: string[],
  repos: Repos,
  kept: boolean,
): Promise<{ board: BoardRecord; project: ProjectRecord; createRules?: boolean; liveUserIds?: string[]; check?: PlacementCheck }> {
  if (input.boardId !== undefined) {
    const place = await repos.boards.placement(actor.workspace.id, input.boardId, userIds, kept);
    if (!place || !canSeeBoard(actor, place.board)) throw missingRef('boardId', `board ${input.boardId}`);
    if (input.projectId !== undefined && input.projectId !== place.board.projectId) {
      throw invalid('projectId', `board ${place.board.id} is not in project ${input.projectId}`);
    }
    return place;
  }
  if (input.projectId === undefined) throw invalid('boardId', 'required: send boardId or projectId');
  if (canSeeProject(actor, input.projectId)) {
    // The project's first board open to the user, read (or remembered) as a placement like a board named by id.
    const place = await repos.boards.placement(actor.workspace.id, { projectId: input.projectId, userId: actor.user.id }, userIds, kept);
    if (place) return place;
  }
  // No such board: the project is missing, hidden from the key, or has no board open to the user.
  const project = await repos.projects.get(actor.workspace.id, input.projectId);
  if (!project || !canSeeProject(actor, project.id)) throw missingRef('projectId', `project ${input.projectId}`);
  throw rejected(`Project ${project.key} has no board; create one first`);
}

/** Creates a task inside the caller's transaction, so a task made from a meeting agreement commits with the agreement. */
export async function createTaskIn(actor: Actor, input: CreateTaskInput, repos: Repos, deps: Deps): Promise<Task> {
  return written(await writeTask(actor, await planTask(actor, input, repos, deps), repos, deps, false)).data;
}

/** A checked task create: the row to insert and what goes with it. */
interface TaskPlan {
  task: TaskInsert;
  projectKey: string;
  labels: string[];
  jobs: OutboxJob[];
  /** The parent, with the version (and, from memory, the board members) the plan read. */
  parent: ParentCheck | null;
  subscriptions: WebhookRecord[];
  statusName: string;
  /** The placement's check when it came from memory: the insert writes only if it holds. */
  check?: PlacementCheck | undefined;
}

/** Reads and checks everything a create needs, writing nothing; the task's id is chosen here. */
async function planTask(actor: Actor, input: CreateTaskInput, repos: Repos, deps: Deps, kept = false): Promise<TaskPlan> {
  requireScope(actor, 'tasks:write');
  let assigneeIds = dedupe(input.assigneeIds ?? []);
  if (input.assigneeId !== undefined && !assigneeIds.includes(input.assigneeId)) assigneeIds = [input.assigneeId, ...assigneeIds];
  const { board, project, createRules, liveUserIds, check } = await placeOf(actor, input, assigneeIds, repos, kept);
  const status = await columnOf(actor, board, input.statusId, repos);
  await checkUsers(actor, assigneeIds, 'assigneeIds', repos, liveUserIds);
  const assigneeId = input.assigneeId ?? assigneeIds[0] ?? null;

  const labels = dedupe(input.labels ?? []);
  const parent = input.parentId !== undefined ? await parentFor(actor, input.parentId, project.id, null, repos, kept) : null;
  const parentId = parent?.id ?? null;
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
  return { task, projectKey: project.key, labels, jobs, parent, subscriptions, statusName: status.name, check };
}

/**
 * Writes a planned task as the last write, so the project's number counter stays locked only until the commit; the
 * parent's version moves with it: in the insert itself, guarded, when the insert commits `alone`, else first, in the
 * caller's transaction. A new task has no subtasks, attachments, time logs or linked pages, so its full form needs no
 * read back. Undefined when a guard (a kept placement's check, the parent's version) no longer holds: nothing was written.
 */
async function writeTask(actor: Actor, plan: TaskPlan, repos: Repos, deps: Deps, alone: boolean): Promise<Versioned<Task> | undefined> {
  if (plan.parent !== null && !alone) await repos.versions.bump('task', [plan.parent.id]); // its subtaskIds changed
  // The entry goes in with the insert (its key filled in there), so the common create stays one self-committing statement.
  const t = plan.task;
  const subject = { task: { id: t.id, key: '', projectId: t.projectId, boardId: t.boardId } };
  const activity = activityEntry(deps, actor, t.workspaceId, subject, 'task.created', taskCreatedChanges({ ...t, statusName: plan.statusName }));
  const appended = await repos.tasks.append(t, plan.projectKey, {
    labels: plan.labels, jobs: plan.jobs, activity, check: plan.check, parent: alone && plan.parent ? plan.parent : undefined,
  });
  if (!appended) return undefined; // a guard no longer holds: nothing was written
  const { task, position } = appended;
  await taskEvent(repos, deps, 'task.created', actor, task, plan.subscriptions, { ...activity, taskKey: task.key });
  return { data: presentTask(task, { subtaskIds: [], attachments: [], timeLogs: [], docIds: [], position }), version: task.version };
}
