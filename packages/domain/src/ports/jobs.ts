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
/** What a notification is about: the event key makes a redelivered job insert nothing. */
export interface NotificationEvent {
  workspaceId: string;
  taskId: string;
  commentId: string | null;
  actorId: string;
  eventKey: string;
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
    /**
     * One notification of the event per recipient who is a live member of the task's workspace and may see its
     * board (a board without a member list is open to all), in one statement; skips any (userId, eventKey) already
     * there and returns how many were new. Nothing when the task is gone.
     */
    deliver(event: NotificationEvent, recipients: Array<{ userId: string; kind: NotificationKind }>): Promise<number>;
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
     * Takes up to `limit` unrelayed, unclaimed rows, oldest first, skipping rows another relay has locked, and marks
     * them in the same statement: `relayedAt` (a durable queue: run it in the transaction that hands them over, so
     * a refused hand-over rolls the mark back) or `holder` (an in-process queue, which marks rows done only once
     * handled; the next claim passes them by through an index, however many are held).
     */
    claim(limit: number, mark: { relayedAt: number } | { holder: string }): Promise<OutboxRow[]>;
    /** Frees unfinished rows claimed by any holder but `holder` (a previous run's in-process queue, lost with it). */
    release(holder: string): Promise<number>;
    markRelayed(ids: number[], at: number): Promise<void>;
    /** Rows not yet relayed. */
    pending(): Promise<number>;
    /** Deletes rows relayed before `at`; returns how many. */
    prune(at: number): Promise<number>;
  };
}
