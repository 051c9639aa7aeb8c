import type { CutPageResult, PageRequest } from '../shared/index.js';

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

/** Repositories of docs. */
export interface DocRepos {
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
    list(filter: DocFilter, page: PageRequest): Promise<CutPageResult<DocRecord>>;
    /** Ids of pages linked to a task, in spaces the user may read (null = every space). */
    linkedToTask(taskId: string, userId: string | null): Promise<string[]>;
    latestVersion(docId: string): Promise<DocVersionRecord | undefined>;
    addVersion(input: Omit<DocVersionRecord, 'id'>): Promise<void>;
    versions(docId: string): Promise<DocVersionRecord[]>;
    addLog(input: Omit<DocLogRecord, 'id'>): Promise<void>;
    log(docId: string): Promise<DocLogRecord[]>;
  };
}

declare module '../shared/store.js' {
  interface Repos extends DocRepos {}
}
