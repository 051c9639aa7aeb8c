import type { PageRequest, PageResult } from '../shared/index.js';
import type { NotificationKind } from './schema.js';

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

/** What a notification is about: the event key makes a redelivered job insert nothing. */
export interface NotificationEvent {
  workspaceId: string;
  taskId: string;
  commentId: string | null;
  actorId: string;
  eventKey: string;
  createdAt: number;
}

/** Repositories of notifications. */
export interface NotificationRepos {
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
}

declare module '../shared/store.js' {
  interface Repos extends NotificationRepos {}
}
