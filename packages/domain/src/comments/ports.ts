import type { PageRequest, PageResult } from '../shared/index.js';

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
