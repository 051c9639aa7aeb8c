import type { ActivityRecord, OutboxJob, PageRequest, PageResult } from '../shared/index.js';

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

/** Repositories of comments. */
export interface CommentRepos {
  comments: {
    insert(input: Omit<CommentRecord, 'id'>): Promise<CommentRecord>;
    /**
     * A comment with all it sets off, in one statement that commits alone: the task's version moves and its
     * `updatedAt` becomes the comment's time, and the comment, its outbox jobs and its activity entry go in, all only
     * if the task is still at `task.version` (and, with `task.boardMemberIds`, its board still has those members).
     * Undefined when not: nothing was written.
     */
    append(
      comment: CommentRecord,
      also: { task: { id: string; version: number; boardMemberIds?: string[] | null }; jobs: OutboxJob[]; activity: ActivityRecord },
    ): Promise<CommentRecord | undefined>;
    get(taskId: string, id: string): Promise<CommentRecord | undefined>;
    /** A comment of any task of the workspace (to tell a comment of another task from a missing one). */
    find(workspaceId: string, id: string): Promise<CommentRecord | undefined>;
    list(taskId: string, page: PageRequest): Promise<PageResult<CommentRecord>>;
    latest(taskId: string, n: number): Promise<CommentRecord[]>;
    /** Newest first, keyset-paged. */
    newest(taskId: string, page: PageRequest): Promise<PageResult<CommentRecord>>;
  };
}

declare module '../shared/store.js' {
  interface Repos extends CommentRepos {}
}
