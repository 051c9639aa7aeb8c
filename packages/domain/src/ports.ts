import type { Plan, Scope } from './schemas/company.js';
import type { Category } from './schemas/project.js';
import type { Priority, TaskType } from './schemas/task.js';

/** Records as the store keeps them; presenters turn them into API shapes. */
export interface WorkspaceRecord {
  id: string;
  name: string;
  plan: Plan;
  timezone: string;
  memberKeysEnabled: boolean;
}
export interface UserRecord {
  id: string;
  workspaceId: string;
  name: string;
  login: string;
  role: string;
  isAdmin: boolean;
  teamIds: string[];
  deletedAt: number | null;
}
export interface TeamRecord {
  id: string;
  workspaceId: string;
  name: string;
  description: string;
  leadId: string | null;
  memberIds: string[];
}
export interface KeyRecord {
  id: string;
  workspaceId: string;
  userId: string;
  scopes: Scope[];
  projectIds: string[] | null;
  expiresAt: number | null;
  allowedIps: string[];
  revokedAt: number | null;
  createdAt: number;
}
export interface ProjectRecord {
  id: string;
  workspaceId: string;
  key: string;
  name: string;
  description: string;
  createdAt: number;
}
export interface StatusRecord {
  id: string;
  boardId: string;
  name: string;
  category: Category;
  position: number;
}
export interface BoardRecord {
  id: string;
  workspaceId: string;
  projectId: string;
  name: string;
  description: string;
  memberIds: string[] | null;
  statuses: StatusRecord[];
}
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
}
export interface TaskDetails {
  subtaskIds: string[];
  timeLogs: TimeLogRecord[];
  attachments: AttachmentRecord[];
  docIds: string[];
  position: number | null;
}
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
export interface AttachmentRecord {
  id: string;
  taskId: string;
  name: string;
  size: number;
  type: string;
}
export interface CommentRecord {
  id: string;
  workspaceId: string;
  taskId: string;
  authorId: string;
  text: string;
  replyTo: string | null;
  mentionIds: string[];
  createdAt: number;
}

/** A page request: rows after `after` (an opaque position), up to `limit`. */
export interface PageRequest {
  limit: number;
  after?: string | undefined;
}
export interface PageResult<T> {
  rows: T[];
  /** Position after the last row, when more rows may follow. */
  next: string | null;
  total: number;
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
  orderBy: 'created' | 'position';
}

export type TaskInsert = Omit<TaskRecord, 'id' | 'statusName' | 'statusCategory' | 'timeSpentSeconds' | 'key' | 'number' | 'rank'>;
export type TaskPatch = Partial<
  Pick<
    TaskRecord,
    | 'title' | 'type' | 'priority' | 'assigneeId' | 'assigneeIds' | 'labels' | 'dueDate' | 'parentId'
    | 'timeEstimateSeconds' | 'descriptionHtml' | 'descriptionText' | 'checklist' | 'boardId' | 'statusId'
    | 'rank' | 'doneAt' | 'archivedAt' | 'updatedAt'
  >
>;

/** A job written to the outbox in the same transaction as the change that caused it. */
export interface OutboxJob {
  name: string;
  payload: Record<string, unknown>;
}

export interface Repos {
  workspaces: {
    create(input: Omit<WorkspaceRecord, 'id'>): Promise<WorkspaceRecord>;
    get(id: string): Promise<WorkspaceRecord | undefined>;
    update(id: string, patch: Partial<Omit<WorkspaceRecord, 'id'>>): Promise<WorkspaceRecord | undefined>;
  };
  users: {
    create(input: Omit<UserRecord, 'id' | 'teamIds' | 'deletedAt'>): Promise<UserRecord>;
    get(workspaceId: string, id: string): Promise<UserRecord | undefined>;
    getAny(id: string): Promise<UserRecord | undefined>;
    byLogins(workspaceId: string, logins: string[]): Promise<UserRecord[]>;
    byIds(workspaceId: string, ids: string[]): Promise<UserRecord[]>;
    list(workspaceId: string, q: string | undefined, page: PageRequest): Promise<PageResult<UserRecord>>;
    softDelete(id: string, at: number): Promise<boolean>;
  };
  teams: {
    create(input: Omit<TeamRecord, 'id'>): Promise<TeamRecord>;
    list(workspaceId: string, page: PageRequest): Promise<PageResult<TeamRecord>>;
  };
  keys: {
    create(input: Omit<KeyRecord, 'id' | 'revokedAt' | 'createdAt'> & { tokenHash: string }): Promise<KeyRecord>;
    byHash(tokenHash: string): Promise<KeyRecord | undefined>;
    get(id: string): Promise<KeyRecord | undefined>;
    update(id: string, patch: { expiresAt: number | null }): Promise<KeyRecord | undefined>;
    revoke(id: string, at: number): Promise<boolean>;
  };
  labels: {
    list(workspaceId: string): Promise<string[]>;
    ensure(workspaceId: string, names: string[]): Promise<void>;
  };
  projects: {
    create(input: Omit<ProjectRecord, 'id'>): Promise<ProjectRecord>;
    get(workspaceId: string, id: string): Promise<ProjectRecord | undefined>;
    byKey(workspaceId: string, key: string): Promise<ProjectRecord | undefined>;
    list(workspaceId: string, onlyIds: string[] | null, page: PageRequest): Promise<PageResult<ProjectRecord>>;
    update(id: string, patch: Partial<Pick<ProjectRecord, 'name' | 'description'>>): Promise<ProjectRecord | undefined>;
    count(workspaceId: string): Promise<number>;
    /** Takes the next task number of the project; serialized per project by a row lock. */
    nextTaskNumber(id: string): Promise<number>;
  };
  boards: {
    create(input: Omit<BoardRecord, 'id' | 'statuses'>, statuses: Array<{ name: string; category: Category }>): Promise<BoardRecord>;
    get(workspaceId: string | null, id: string): Promise<BoardRecord | undefined>;
    list(
      workspaceId: string,
      filter: { projectId?: string | undefined; onlyProjectIds: string[] | null; userId: string },
      page: PageRequest,
    ): Promise<PageResult<BoardRecord>>;
    byProjects(workspaceId: string, projectIds: string[], userId: string): Promise<BoardRecord[]>;
    countInProject(projectId: string): Promise<number>;
    addStatus(boardId: string, status: { name: string; category: Category }): Promise<void>;
    setMembers(boardId: string, memberIds: string[] | null): Promise<void>;
    status(workspaceId: string, statusId: string): Promise<StatusRecord | undefined>;
  };
  tasks: {
    insert(task: TaskInsert, number: number, key: string, rank: number): Promise<TaskRecord>;
    get(workspaceId: string, ref: { id?: string; key?: string }): Promise<TaskRecord | undefined>;
    getAny(id: string): Promise<TaskRecord | undefined>;
    byIds(workspaceId: string, ids: string[]): Promise<TaskRecord[]>;
    details(task: TaskRecord): Promise<TaskDetails>;
    update(id: string, patch: TaskPatch): Promise<void>;
    delete(id: string): Promise<void>;
    list(filter: TaskFilter, page: PageRequest): Promise<PageResult<TaskRecord & { position?: number }>>;
    /** Rank bounds around `position` (0 = top) in a column, ignoring `exceptId`. */
    rankAt(statusId: string, position: number, exceptId: string | null): Promise<{ before: number | null; after: number | null }>;
    renumberColumn(statusId: string): Promise<void>;
    /** Ids of the task and its ancestors, nearest first. */
    ancestors(id: string): Promise<string[]>;
  };
  comments: {
    insert(input: Omit<CommentRecord, 'id'>): Promise<CommentRecord>;
    get(taskId: string, id: string): Promise<CommentRecord | undefined>;
    list(taskId: string, page: PageRequest): Promise<PageResult<CommentRecord>>;
    latest(taskId: string, n: number): Promise<CommentRecord[]>;
  };
  attachments: {
    insert(input: Omit<AttachmentRecord, 'id'>): Promise<AttachmentRecord>;
  };
  outbox: {
    add(jobs: OutboxJob[]): Promise<void>;
  };
}

/** The store: repositories plus a transaction boundary. Jobs added inside a transaction commit with it. */
export interface Store extends Repos {
  transaction<T>(fn: (repos: Repos) => Promise<T>): Promise<T>;
}

/** Wakes the outbox relay after a commit; the relay delivers what the transaction wrote. */
export interface JobSignal {
  notify(): void;
}
