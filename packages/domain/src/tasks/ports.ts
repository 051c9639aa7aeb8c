import type { ActivityRecord, CutPageResult, OutboxJob, PageRequest } from '../shared/index.js';
import type { KeyLookup } from '../keys/index.js';
import type { Category, PlacementCheck } from '../projects/index.js';
import type { Priority, TaskType } from './schema.js';

export interface ChecklistRecord {
  id: string;
  text: string;
  done: boolean;
}

export interface TaskRecord {
  id: string;
  workspaceId: string;
  projectId: string;
  boardId: string;
  statusId: string;
  statusName: string;
  statusCategory: Category;
  number: number;
  key: string;
  title: string;
  type: TaskType;
  priority: Priority;
  assigneeId: string | null;
  assigneeIds: string[];
  reporterId: string;
  labels: string[];
  dueDate: string | null;
  parentId: string | null;
  timeEstimateSeconds: number;
  timeSpentSeconds: number;
  descriptionHtml: string;
  descriptionText: string;
  checklist: ChecklistRecord[];
  rank: number;
  archivedAt: number | null;
  doneAt: number | null;
  createdAt: number;
  updatedAt: number;
  /** Raised by every change to what GET shows (see versions.ts). */
  version: number;
}

/**
 * A task as a list reads it: what a summary shows, and `rank` (a position in a column). Not its workspace (the list's
 * own), number (in the key), version, description or checklist.
 */
export type TaskSummaryRecord = Omit<TaskRecord, 'workspaceId' | 'number' | 'version' | 'descriptionHtml' | 'descriptionText' | 'checklist'>;

export interface TaskDetails {
  subtaskIds: string[];
  timeLogs: TimeLogRecord[];
  attachments: AttachmentRecord[];
  docIds: string[];
  position: number | null;
}

/** Whether a task's full form carries its position in its column (a count of the tasks above it); default true. */
export interface PositionOption {
  position?: boolean;
}

/** A task with what deciding its visibility needs: its board's members (null = an open board). */
export interface TaskView {
  task: TaskRecord;
  boardMemberIds: string[] | null;
}

/** A task with its details, read in one query. */
export interface TaskFullView extends TaskView {
  details: TaskDetails;
}

export interface AttachmentRecord {
  id: string;
  taskId: string;
  name: string;
  size: number;
  type: string;
}

export interface TaskFilter {
  workspaceId: string;
  visibleProjectIds: string[] | null;
  userId: string;
  projectId?: string | undefined;
  boardId?: string | undefined;
  statusId?: string | undefined;
  category?: Category | undefined;
  assigneeId?: string | undefined;
  reporterId?: string | undefined;
  types?: TaskType[] | undefined;
  priorities?: Priority[] | undefined;
  labels?: string[] | undefined;
  parentId?: string | undefined;
  dueBefore?: string | undefined;
  updatedSince?: number | undefined;
  q?: string | undefined;
  archived: 'false' | 'true' | 'all';
  orderBy: TaskOrder;
  /** Any of these columns / categories (besides statusId and category, which stay single). */
  statusIds?: string[] | undefined;
  categories?: Category[] | undefined;
  dueAfter?: string | undefined;
  /** Creation bounds, epoch ms: at or after `createdSince`, before `createdBefore`. */
  createdSince?: number | undefined;
  createdBefore?: number | undefined;
}

/** created: oldest first; position: column order; priority: highest first; dueDate: soonest first, none last; updated: latest first. */
export type TaskOrder = 'created' | 'position' | 'priority' | 'dueDate' | 'updated';
export type TaskInsert = Omit<TaskRecord, 'statusName' | 'statusCategory' | 'timeSpentSeconds' | 'key' | 'number' | 'rank' | 'version'>;
/** One task's change in a set of them (tasks.updateViews): guarded by the version it was planned on. */
export interface TaskChange {
  id: string;
  version: number;
  patch: TaskPatch;
  jobs: OutboxJob[];
  activity: ActivityRecord[];
}

export type TaskPatch = Partial<
  Pick<
    TaskRecord,
    | 'title' | 'type' | 'priority' | 'assigneeId' | 'assigneeIds' | 'labels' | 'dueDate' | 'parentId'
    | 'timeEstimateSeconds' | 'descriptionHtml' | 'descriptionText' | 'checklist' | 'boardId' | 'statusId'
    | 'rank' | 'doneAt' | 'archivedAt' | 'updatedAt'
  >
>;
export interface TimeLogRecord {
  id: string;
  workspaceId: string;
  taskId: string;
  taskKey: string;
  projectId: string;
  userId: string;
  seconds: number;
  date: string;
  note: string;
  createdAt: number;
}

/** Repositories of tasks. */
export interface TaskRepos {
  tasks: {
    /**
     * Inserts a task at the bottom of its column, numbered with its project's next number (key `<projectKey>-<n>`),
     * with its labels made known in the workspace and its outbox jobs, in one statement; with its position in the
     * column. Call it last in the transaction: it locks the project's counter until the commit.
     */
    /**
     * Inserts a task with its labels, outbox jobs and its `task.created` activity entry in one statement (the entry's
     * `taskKey` is the key the insert numbers), so the entry commits with the task even when the insert commits alone.
     * With `check` (a kept placement's), it writes nothing and answers undefined when the placement no longer holds.
     * With `parent`, the parent's version moves in the same statement, guarded by `parent.version` (and
     * `parent.boardMemberIds`): undefined, and nothing written, when the parent changed.
     */
    append(
      task: TaskInsert,
      projectKey: string,
      also: {
        labels: string[]; jobs: OutboxJob[]; activity: ActivityRecord; check?: PlacementCheck | undefined;
        parent?: { id: string; version: number; boardMemberIds?: string[] | null } | undefined;
      },
    ): Promise<{ task: TaskRecord; position: number } | undefined>;
    get(workspaceId: string, ref: { id?: string; key?: string }): Promise<TaskRecord | undefined>;
    getAny(id: string): Promise<TaskRecord | undefined>;
    /**
     * A task by id or key with its board's members, in one query.
     *
     * `kept`: the task as this process last read or changed it may answer, with no query, outside a transaction; such
     * an answer says `kept: true`. Nothing in it is trusted: a change planned on it passes its version and its board's
     * members to `updateView`, which writes only if both still hold. A refusal is never given on it either.
     */
    view(workspaceId: string, ref: { id?: string; key?: string }, kept?: boolean): Promise<(TaskView & { kept?: true }) | undefined>;
    /** Tasks by ids and keys (keys as taskRef gives them) with their boards' members, in one query on the indexes. */
    views(workspaceId: string, refs: { ids: string[]; keys: string[] }): Promise<TaskView[]>;
    /**
     * A task by id or key (workspaceId null: by id in any workspace) with its board's members and details, in one
     * query. `o.position` false: without the column position (`details.position` null), which is a count of the tasks
     * above it in its column; default true.
     */
    fullView(workspaceId: string | null, ref: { id?: string; key?: string }, viewerId: string | null, o?: PositionOption): Promise<TaskFullView | undefined>;
    /**
     * The key of a token hash as `keys.authenticate` finds it and, in the same query, the task `ref` of the key's
     * workspace as `fullView` gives it to the key's user without the column position (`task` undefined when there is
     * no such task); undefined when there is no such key. Nothing of the task may be used before the key's checks pass.
     */
    fullViewWithKey(tokenHash: string, ref: { id?: string; key?: string }): Promise<(KeyLookup & { task: TaskFullView | undefined }) | undefined>;
    byIds(workspaceId: string, ids: string[]): Promise<TaskRecord[]>;
    /**
     * Subtasks, time logs, attachments, linked pages (those in spaces `viewerId` may read; null = the operator, all)
     * and column position (not with `o.position` false).
     */
    details(task: TaskRecord, viewerId: string | null, o?: PositionOption): Promise<TaskDetails>;
    update(id: string, patch: TaskPatch): Promise<void>;
    /**
     * Changes a task and answers with it as the change left it, with its board's members and details (as `fullView`),
     * in one statement; undefined when no task has that id, or (with `also.version`) when its version is no longer
     * that one, or (with `also.boardMemberIds`) when its board's members are no longer those, or (with
     * `also.placementStamp`) when its board no longer gives that placement stamp, and then nothing is written. `also`'s
     * labels, jobs and activity entry go in with the change. `also.toTop`: the task goes to the top of the column the
     * patch names (its rank is found in the statement; the patch gives none). `also.current`: when a guard does not
     * hold, the same statement reads the task as it is now and hands it there (a plan on a kept task is made again on
     * it, with no read of its own). `also.position` false: the answer's details without the column position.
     */
    updateView(
      id: string, patch: TaskPatch, viewerId: string | null,
      also?: {
        version?: number; boardMemberIds?: string[] | null; placementStamp?: string; toTop?: boolean; current?: (now: TaskView) => void;
        labels?: { workspaceId: string; names: string[] }; jobs?: OutboxJob[]; activity?: ActivityRecord[]; position?: boolean;
      },
    ): Promise<TaskFullView | undefined>;
    /**
     * Many tasks' changes in one statement, each as `updateView` makes one with `also.version`, its labels (the
     * workspace's), jobs and activity entries: answers per change, in order, the task as changed (with its board's
     * members and details) or undefined when its version moved (nothing of it written). `details.position` counts the
     * tasks above the new place as they were before the statement (the others of the set at their old places). For
     * tasks of one workspace, each named once.
     */
    updateViews(changes: readonly TaskChange[], viewerId: string | null, o: { workspaceId: string }): Promise<Array<TaskFullView | undefined>>;
    /** The rank of each column's first active task but those in `besides` (null: none), in one query. */
    columnTops(statusIds: string[], besides: string[]): Promise<Map<string, number | null>>;
    delete(id: string): Promise<void>;
    /**
     * A page, with `after(n)`: the position after its first n rows (1 to rows.length; null when nothing follows them),
     * for a reader that shows fewer rows than it read and pages on from the last one shown, without reading again.
     */
    list(filter: TaskFilter, page: PageRequest): Promise<CutPageResult<TaskSummaryRecord & { position?: number }>>;
    /** Rank bounds around `position` (0 = top) in a column, ignoring `exceptId`. */
    rankAt(statusId: string, position: number, exceptId: string | null): Promise<{ before: number | null; after: number | null }>;
    renumberColumn(statusId: string): Promise<void>;
    /** Ids of the task and its ancestors, nearest first. */
    ancestors(id: string): Promise<string[]>;
  };
  attachments: {
    insert(input: Omit<AttachmentRecord, 'id'>): Promise<AttachmentRecord>;
  };
}

declare module '../shared/store.js' {
  interface Repos extends TaskRepos {}
}
