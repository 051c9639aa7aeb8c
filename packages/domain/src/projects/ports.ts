import type { PageRequest, PageResult } from '../shared/index.js';
import type { Category } from './schema.js';

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

/**
 * What a placement served from memory said, in the store's terms: the board it was of, a digest of what was read
 * with it (the board, its columns, its project's key, whether it has task_created rules) and the people taken for
 * live. The domain only hands it on to `tasks.append`.
 */
export interface PlacementCheck {
  readonly workspaceId: string;
  readonly boardId: string;
  readonly stamp: string;
  readonly userIds: readonly string[];
  /** The board was taken as the first board of this project open to this user: no board before it may be open to them. */
  readonly first?: { readonly projectId: string; readonly userId: string } | undefined;
}

/** Repositories of projects. */
export interface ProjectRepos {
  projects: {
    create(input: Omit<ProjectRecord, 'id' | 'version'>): Promise<ProjectRecord>;
    get(workspaceId: string, id: string): Promise<ProjectRecord | undefined>;
    byKey(workspaceId: string, key: string): Promise<ProjectRecord | undefined>;
    byIds(workspaceId: string, ids: string[]): Promise<ProjectRecord[]>;
    list(workspaceId: string, onlyIds: string[] | null, page: PageRequest): Promise<PageResult<ProjectRecord>>;
    update(id: string, patch: Partial<Pick<ProjectRecord, 'name' | 'description'>>): Promise<ProjectRecord | undefined>;
    count(workspaceId: string): Promise<number>;
  };
  boards: {
    create(input: Omit<BoardRecord, 'id' | 'statuses'>, statuses: Array<{ name: string; category: Category }>): Promise<BoardRecord>;
    get(workspaceId: string | null, id: string): Promise<BoardRecord | undefined>;
    /**
     * Where a task created on a board goes, in one query: the board with its columns, its project, whether the board
     * has task_created automation rules at all (none: creating a task there needs no automation job), and which of
     * `userIds` are live people of the workspace (the assignees to check).
     *
     * `id` may name the board as the first board (by id) of a project open to a user, as a create by project places a
     * task: undefined when the project has none (or is not in the workspace).
     *
     * `kept`: the board as this process last read it may answer, with no query, outside a transaction. Such an answer
     * takes every one of `userIds` for live and carries `check`: passed to `tasks.append`, the insert writes only if
     * all it said still holds, so a create planned on it either commits on what is true or writes nothing.
     */
    placement(
      workspaceId: string,
      id: string | { projectId: string; userId: string },
      userIds: string[],
      kept?: boolean,
    ): Promise<{ board: BoardRecord; project: ProjectRecord; createRules: boolean; liveUserIds: string[]; check?: PlacementCheck } | undefined>;
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
}

declare module '../shared/store.js' {
  interface Repos extends ProjectRepos {}
}
