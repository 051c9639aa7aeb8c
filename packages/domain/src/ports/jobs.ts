import type { AutomationAction } from '../schemas/admin.js';
import type { NotificationKind } from '../schemas/notification.js';
import type { UserRecord } from './company.js';
import type { PageRequest, PageResult } from './paging.js';

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
/** Wakes the outbox relay after a commit; the relay delivers what the transaction wrote. */
export interface JobSignal {
  notify(): void;
}
/** Repositories of jobs. */
export interface JobRepos {
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
}
