import { type Deps, DomainError, invalid, missingRef, notFound, rejected, type Repos } from '../shared/index.js';
import { type Actor, canSeeBoard, canSeeProject } from '../keys/index.js';
import type { BoardRecord, StatusRecord } from '../projects/index.js';
import type { Versioned } from '../versions/index.js';
import { taskRef } from './lookup.js';
import type { ChecklistRecord, PositionOption, TaskPatch, TaskRecord } from './ports.js';
import { presentTask } from './present.js';
import { rankBetween } from './rank.js';
import type { Task } from './schema.js';

/** Checks and helpers the task writes share: what a task may be moved to, who may be assigned, its full form. */

export function assertActive(task: TaskRecord): void {
  if (task.archivedAt !== null) throw new DomainError('archived', `Task ${task.key} is archived; restore it before changing it`);
}

export async function boardFor(actor: Actor, boardId: string, repos: Repos, field: string): Promise<BoardRecord> {
  const board = await repos.boards.get(actor.workspace.id, boardId);
  if (!board || !canSeeBoard(actor, board)) throw missingRef(field, `board ${boardId}`);
  return board;
}

/**
 * The column a write names on `board` (default its first). A column of another board the actor can see breaks a
 * rule (400); a missing or hidden one is 404 like any invisible reference.
 */
export async function columnOf(actor: Actor, board: BoardRecord, statusId: string | undefined, repos: Repos, field = 'statusId'): Promise<StatusRecord> {
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
export async function checkUsers(actor: Actor, ids: string[], field: string, repos: Repos, liveIds?: string[]): Promise<void> {
  if (!ids.length) return;
  const live = new Set(liveIds ?? (await repos.users.byIds(actor.workspace.id, ids)).filter((u) => u.deletedAt === null).map((u) => u.id));
  const missing = ids.filter((id) => !live.has(id));
  if (missing.length) throw missingRef(field, `user ${missing.join(', ')}`);
}

export async function checkParent(actor: Actor, parentId: string, projectId: string, selfId: string | null, repos: Repos): Promise<string> {
  return (await parentFor(actor, parentId, projectId, selfId, repos)).id;
}

/** The parent a write names, as the write guards it: its version, and its board's members when it came from memory. */
export interface ParentCheck {
  id: string;
  version: number;
  boardMemberIds?: string[] | null;
}

/**
 * checkParent's parent with what a write that bumps its version guards. `kept`: the parent may be the task as this
 * process last had it (see tasks.view); the write must then check its version and board members.
 */
export async function parentFor(
  actor: Actor, parentId: string, projectId: string, selfId: string | null, repos: Repos, kept = false,
): Promise<ParentCheck> {
  const view = await repos.tasks.view(actor.workspace.id, taskRef(parentId), kept);
  if (!view || !canSeeBoard(actor, { projectId: view.task.projectId, memberIds: view.boardMemberIds })) throw missingRef('parentId', `task ${parentId}`);
  const parent = view.task;
  if (parent.projectId !== projectId) throw rejected('A subtask must be in the same project as its parent');
  if (selfId !== null) {
    const chain = await repos.tasks.ancestors(parent.id);
    if (chain.includes(selfId)) throw rejected('The parent would make a cycle of subtasks');
  }
  return { id: parent.id, version: parent.version, ...(view.kept ? { boardMemberIds: view.boardMemberIds } : {}) };
}

export const dedupe = <T>(xs: T[]): T[] => [...new Set(xs)];
export function checklistItems(items: Array<{ text: string; done: boolean }>, deps: Deps): ChecklistRecord[] {
  return items.map((i) => ({ id: deps.newId('chk'), text: i.text, done: i.done }));
}

export function doneAtFor(category: string, previous: number | null, now: number): number | null {
  if (category !== 'done') return null;
  return previous ?? now;
}

/** The full form as stored now (one query: the row, its details and its version). */
export async function versioned(actor: Actor | null, task: Pick<TaskRecord, 'id' | 'workspaceId'>, repos: Repos): Promise<Versioned<Task>> {
  return (await written(actor, task, repos)).answer;
}

export async function presentFullTask(actor: Actor | null, task: Pick<TaskRecord, 'id' | 'workspaceId'>, repos: Repos): Promise<Task> {
  return (await versioned(actor, task, repos)).data;
}

/** Rank that puts a task at `position` (0 = top) of a column; `renumbered` hears when the column's ranks were redone. */
export async function rankFor(repos: Repos, statusId: string, position: number, taskId: string, renumbered?: (statusId: string) => void): Promise<number> {
  let bounds = await repos.tasks.rankAt(statusId, position, taskId);
  let rank = rankBetween(bounds.before, bounds.after);
  if (rank === null) {
    await repos.tasks.renumberColumn(statusId);
    renumbered?.(statusId);
    bounds = await repos.tasks.rankAt(statusId, position, taskId);
    rank = rankBetween(bounds.before, bounds.after) ?? 0;
  }
  return rank;
}

/**
 * A task as it is now, read once (inside a write's transaction, as the write left it): its record, for the change's
 * activity and events, and its full form with the version, for the answer (with its column position unless
 * `o.position` is false). With `patch`, the change is made in the same statement as the read.
 */
export async function written(
  actor: Actor | null, task: Pick<TaskRecord, 'id' | 'workspaceId'>, repos: Repos, patch?: TaskPatch, o: PositionOption = {},
): Promise<{ record: TaskRecord; answer: Versioned<Task> }> {
  const viewer = actor?.user.id ?? null;
  const view = patch
    ? await repos.tasks.updateView(task.id, patch, viewer, { position: o.position !== false })
    : await repos.tasks.fullView(task.workspaceId, { id: task.id }, viewer, o);
  if (!view) throw notFound('Task');
  return { record: view.task, answer: { data: presentTask(view.task, view.details), version: view.task.version } };
}
