import type { Plan, Scope } from './schemas/company.js';
import type { Category } from './schemas/project.js';
import type { Priority, TaskType } from './schemas/task.js';
import type { AutomationAction } from './schemas/admin.js';
import type { NotificationKind } from './schemas/notification.js';
import type { WebhookRepo } from './webhook-ports.js';
import type { VersionsRepo } from './versions.js';
import type { IdempotencyRepo } from './idempotency.js';

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
  /** Raised by every change to what GET shows (see versions.ts). */
  version: number;
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
  /** Raised by every change to what GET shows (see versions.ts). */
  version: number;
}
export interface TaskDetails {
  subtaskIds: string[];
  timeLogs: TimeLogRecord[];
  attachments: AttachmentRecord[];
  docIds: string[];
  position: number | null;
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

export interface DocSpaceRecord {
  id: string;
  workspaceId: string;
  name: string;
  description: string;
  memberIds: string[] | null;
}
export interface DocRecord {
  id: string;
  workspaceId: string;
  spaceId: string;
  parentId: string | null;
  title: string;
  contentHtml: string;
  text: string;
  taskIds: string[];
  authorId: string;
  createdAt: number;
  updatedAt: number;
  /** Raised by every change to what GET shows (see versions.ts). */
  version: number;
}
export interface DocVersionRecord {
  id: string;
  docId: string;
  title: string;
  contentHtml: string;
  text: string;
  createdAt: number;
}
export interface DocLogRecord {
  id: string;
  docId: string;
  userId: string;
  action: 'created' | 'updated';
  changes: string[];
  createdAt: number;
}
export interface DocFilter {
  workspaceId: string;
  userId: string;
  spaceId?: string | undefined;
  parentId?: string | undefined;
  taskId?: string | undefined;
  q?: string | undefined;
  updatedSince?: number | undefined;
}
export interface MeetingFolderRecord {
  id: string;
  workspaceId: string;
  name: string;
  parentId: string | null;
  teamIds: string[];
}
export interface MeetingSummaryRecord {
  overview: string;
  topics: Array<{ title: string; points: string[] }>;
  decisions: string[];
  actionItems: Array<{ text: string; owner: string; due: string | null; taskId: string | null }>;
  generatedAt: number;
}
export interface ReplicaRecord {
  speaker: string;
  start: string;
  end: string;
  text: string;
}
export interface MeetingRecord {
  id: string;
  workspaceId: string;
  title: string;
  url: string;
  folderId: string | null;
  projectId: string | null;
  createdBy: string;
  startedAt: number;
  endedAt: number | null;
  status: string;
  participants: string[];
  transcriptReady: boolean;
  summary: MeetingSummaryRecord | null;
}
/** Who may see which meetings: folders open or shared with the user's teams, and the user's personal ones. */
export interface MeetingFilter {
  workspaceId: string;
  userId: string;
  teamIds: string[];
  visibleProjectIds: string[] | null;
  folderId?: string | undefined;
  projectId?: string | undefined;
  status?: string | undefined;
  startedFrom?: number | undefined;
  startedBefore?: number | undefined;
  q?: string | undefined;
}
export interface AgreementRecord {
  meetingId: string;
  meetingTitle: string;
  startedAt: number;
  text: string;
  owner: string;
  due: string | null;
}
/** Which time logs a key may read, and the period and filters asked for. */
export interface TimeFilter {
  workspaceId: string;
  userId: string;
  visibleProjectIds: string[] | null;
  from: string;
  to: string;
  userIds?: string[] | undefined;
  projectIds?: string[] | undefined;
  taskIds?: string[] | undefined;
}
/** One group of a time report: the grouping keys with the names they show, and the sums. */
export interface TimeReportGroupRow {
  userId?: string;
  userName?: string;
  projectId?: string;
  projectKey?: string;
  projectName?: string;
  taskId?: string;
  taskKey?: string;
  taskTitle?: string;
  taskProjectId?: string;
  day?: string;
  seconds: number;
  entries: number;
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
  orderBy: TaskOrder;
  /** Any of these columns / categories (besides statusId and category, which stay single). */
  statusIds?: string[] | undefined;
  categories?: Category[] | undefined;
  dueAfter?: string | undefined;
}

/** created: oldest first; position: column order; priority: highest first; dueDate: soonest first, none last; updated: latest first. */
export type TaskOrder = 'created' | 'position' | 'priority' | 'dueDate' | 'updated';

export type TaskInsert = Omit<TaskRecord, 'id' | 'statusName' | 'statusCategory' | 'timeSpentSeconds' | 'key' | 'number' | 'rank' | 'version'>;
export type TaskPatch = Partial<
  Pick<
    TaskRecord,
    | 'title' | 'type' | 'priority' | 'assigneeId' | 'assigneeIds' | 'labels' | 'dueDate' | 'parentId'
    | 'timeEstimateSeconds' | 'descriptionHtml' | 'descriptionText' | 'checklist' | 'boardId' | 'statusId'
    | 'rank' | 'doneAt' | 'archivedAt' | 'updatedAt'
  >
>;

export interface NotificationRecord {
  id: string;
  workspaceId: string;
  userId: string;
  kind: NotificationKind;
  taskId: string;
  commentId: string | null;
  actorId: string;
  /** One notification per person per event: (userId, eventKey) is unique. */
  eventKey: string;
  createdAt: number;
  readAt: number | null;
}
/** Whose inbox, and what the reading key may see (null = everything, as the operator). */
export interface NotificationFilter {
  userId: string;
  unread?: boolean | undefined;
  visibleTo?: { projectIds: string[] | null } | undefined;
}
export interface AutomationRecord {
  id: string;
  workspaceId: string;
  boardId: string;
  ownerId: string;
  trigger: 'task_created';
  statusId: string | null;
  actions: AutomationAction[];
  createdAt: number;
}
/** An outbox row waiting to be relayed to the queue. */
export interface OutboxRow {
  id: number;
  name: string;
  payload: Record<string, unknown>;
  createdAt: number;
}

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
    /** Ids of those teams that exist in the workspace. */
    existing(workspaceId: string, ids: string[]): Promise<string[]>;
  };
  keys: {
    create(input: Omit<KeyRecord, 'id' | 'revokedAt' | 'createdAt'> & { tokenHash: string }): Promise<KeyRecord>;
    byHash(tokenHash: string): Promise<KeyRecord | undefined>;
    /** The key of a token hash with its user (and teams) and workspace, read together in one query. */
    authenticate(tokenHash: string): Promise<{ key: KeyRecord; user: UserRecord; workspace: WorkspaceRecord } | undefined>;
    get(id: string): Promise<KeyRecord | undefined>;
    update(id: string, patch: { expiresAt: number | null }): Promise<KeyRecord | undefined>;
    revoke(id: string, at: number): Promise<boolean>;
  };
  labels: {
    list(workspaceId: string): Promise<string[]>;
    ensure(workspaceId: string, names: string[]): Promise<void>;
  };
  projects: {
    create(input: Omit<ProjectRecord, 'id' | 'version'>): Promise<ProjectRecord>;
    get(workspaceId: string, id: string): Promise<ProjectRecord | undefined>;
    byKey(workspaceId: string, key: string): Promise<ProjectRecord | undefined>;
    byIds(workspaceId: string, ids: string[]): Promise<ProjectRecord[]>;
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
    /** A task by id or key with its board's members, in one query. */
    view(workspaceId: string, ref: { id?: string; key?: string }): Promise<TaskView | undefined>;
    /** A task by id or key (workspaceId null: by id in any workspace) with its board's members and details, in one query. */
    fullView(workspaceId: string | null, ref: { id?: string; key?: string }, viewerId: string | null): Promise<TaskFullView | undefined>;
    byIds(workspaceId: string, ids: string[]): Promise<TaskRecord[]>;
    /** Subtasks, time logs, attachments, linked pages (those in spaces `viewerId` may read; null = the operator, all) and column position. */
    details(task: TaskRecord, viewerId: string | null): Promise<TaskDetails>;
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
    /** A comment of any task of the workspace (to tell a comment of another task from a missing one). */
    find(workspaceId: string, id: string): Promise<CommentRecord | undefined>;
    list(taskId: string, page: PageRequest): Promise<PageResult<CommentRecord>>;
    latest(taskId: string, n: number): Promise<CommentRecord[]>;
    /** Newest first, keyset-paged. */
    newest(taskId: string, page: PageRequest): Promise<PageResult<CommentRecord>>;
  };
  attachments: {
    insert(input: Omit<AttachmentRecord, 'id'>): Promise<AttachmentRecord>;
  };
  timeLogs: {
    insert(input: Omit<TimeLogRecord, 'id' | 'taskKey'>): Promise<TimeLogRecord>;
    list(filter: TimeFilter, page: PageRequest): Promise<PageResult<TimeLogRecord>>;
    report(filter: TimeFilter, groupBy: Array<'user' | 'task' | 'project' | 'day'>): Promise<TimeReportGroupRow[]>;
  };
  docSpaces: {
    create(input: Omit<DocSpaceRecord, 'id'>): Promise<DocSpaceRecord>;
    get(workspaceId: string, id: string): Promise<DocSpaceRecord | undefined>;
    /** Spaces the user may read: open ones and those they are a member of. */
    listVisible(workspaceId: string, userId: string): Promise<DocSpaceRecord[]>;
  };
  docs: {
    insert(input: Omit<DocRecord, 'id' | 'taskIds' | 'version'>, path: string): Promise<DocRecord>;
    get(workspaceId: string, id: string): Promise<(DocRecord & { path: string }) | undefined>;
    byIds(workspaceId: string, ids: string[]): Promise<DocRecord[]>;
    update(id: string, patch: Partial<Pick<DocRecord, 'title' | 'contentHtml' | 'text' | 'updatedAt'>>): Promise<void>;
    setTasks(docId: string, taskIds: string[]): Promise<void>;
    /** Pages in tree order (depth first, siblings by creation), in spaces the user may read. */
    list(filter: DocFilter, page: PageRequest): Promise<PageResult<DocRecord>>;
    /** Ids of pages linked to a task, in spaces the user may read (null = every space). */
    linkedToTask(taskId: string, userId: string | null): Promise<string[]>;
    latestVersion(docId: string): Promise<DocVersionRecord | undefined>;
    addVersion(input: Omit<DocVersionRecord, 'id'>): Promise<void>;
    versions(docId: string): Promise<DocVersionRecord[]>;
    addLog(input: Omit<DocLogRecord, 'id'>): Promise<void>;
    log(docId: string): Promise<DocLogRecord[]>;
  };
  meetingFolders: {
    create(input: Omit<MeetingFolderRecord, 'id'>): Promise<MeetingFolderRecord>;
    get(workspaceId: string, id: string): Promise<MeetingFolderRecord | undefined>;
    listVisible(workspaceId: string, teamIds: string[]): Promise<MeetingFolderRecord[]>;
  };
  meetings: {
    insert(input: Omit<MeetingRecord, 'id'>, transcript: ReplicaRecord[] | null, summaryText: string): Promise<MeetingRecord>;
    get(workspaceId: string, id: string): Promise<MeetingRecord | undefined>;
    list(filter: MeetingFilter, page: PageRequest): Promise<PageResult<MeetingRecord>>;
    transcript(id: string): Promise<ReplicaRecord[]>;
    /** Action items naming the task, from meetings the filter lets the user see, newest meeting first. */
    agreementsForTask(taskId: string, visibility: Pick<MeetingFilter, 'workspaceId' | 'userId' | 'teamIds' | 'visibleProjectIds'>): Promise<AgreementRecord[]>;
    /** The summary, with the meeting row locked until the transaction ends (null when there is none). */
    lockSummary(id: string): Promise<MeetingSummaryRecord | null>;
    /** Stores the summary after agreement `index` got its task, and indexes that agreement under the task. */
    recordAgreementTask(id: string, index: number, summary: MeetingSummaryRecord): Promise<void>;
  };
  notifications: {
    /** Inserts, skipping any (userId, eventKey) already there; returns how many were new. */
    insertMany(rows: Array<Omit<NotificationRecord, 'id' | 'readAt'>>): Promise<number>;
    /** Newest first. */
    list(filter: NotificationFilter, page: PageRequest): Promise<PageResult<NotificationRecord>>;
    /** Marks unread notifications read (the listed ids, or all); returns how many changed. */
    markRead(filter: NotificationFilter, ids: string[] | 'all', at: number): Promise<number>;
  };
  automations: {
    create(input: Omit<AutomationRecord, 'id'>): Promise<AutomationRecord>;
    get(id: string): Promise<AutomationRecord | undefined>;
    list(boardId: string): Promise<AutomationRecord[]>;
    delete(id: string): Promise<boolean>;
    /** task_created rules of a board for a column (rules without a column too) made no later than `at`, oldest first. */
    forTaskCreated(boardId: string, statusId: string, at: number): Promise<AutomationRecord[]>;
    /** Records that a rule ran on a task; false if it already had (so a redelivered job does nothing). */
    claimRun(automationId: string, taskId: string, at: number): Promise<boolean>;
    /** The default owner of a rule: the workspace's earliest live admin. */
    firstAdmin(workspaceId: string): Promise<UserRecord | undefined>;
  };
  /** Idempotency keys of retried requests (REST Idempotency-Key, MCP requestId). */
  idempotency: IdempotencyRepo;
  /** Versions of tasks, pages and projects (ETag / If-Match). */
  versions: VersionsRepo;
  outbox: {
    add(jobs: OutboxJob[]): Promise<void>;
    /**
     * Takes up to `limit` unrelayed, unclaimed rows, oldest first, skipping rows another relay has locked. With
     * `holder` (an in-process queue, which marks rows done only once handled) the rows are marked claimed by it in
     * the same statement, so the next claim passes them by through an index, however many are held.
     */
    claim(limit: number, holder?: string): Promise<OutboxRow[]>;
    /** Frees unfinished rows claimed by any holder but `holder` (a previous run's in-process queue, lost with it). */
    release(holder: string): Promise<number>;
    markRelayed(ids: number[], at: number): Promise<void>;
    /** Rows not yet relayed. */
    pending(): Promise<number>;
    /** Deletes rows relayed before `at`; returns how many. */
    prune(at: number): Promise<number>;
  };
  webhooks: WebhookRepo;
}

/** The store: repositories plus a transaction boundary. Jobs added inside a transaction commit with it. */
export interface Store extends Repos {
  /** Runs `fn` in a transaction; its store opens nested transactions as savepoints, so use cases compose atomically. */
  transaction<T>(fn: (repos: Store) => Promise<T>): Promise<T>;
}

/** Wakes the outbox relay after a commit; the relay delivers what the transaction wrote. */
export interface JobSignal {
  notify(): void;
}
