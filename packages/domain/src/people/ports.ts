import type { PageRequest, PageResult } from '../shared/index.js';
import type { UserRecord, WorkspaceRecord } from '../keys/index.js';

export interface TeamRecord {
  id: string;
  workspaceId: string;
  name: string;
  description: string;
  leadId: string | null;
  memberIds: string[];
}

/** Repositories of people: workspaces, users, teams and labels. */
export interface PeopleRepos {
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
    /**
     * The login of each of `ids` that is a user of the workspace, deleted users too (id to login; others left out). A
     * login never changes, so an implementation may remember what it read.
     */
    logins(workspaceId: string, ids: Iterable<string>): Promise<Map<string, string>>;
    list(workspaceId: string, q: string | undefined, page: PageRequest): Promise<PageResult<UserRecord>>;
    softDelete(id: string, at: number): Promise<boolean>;
  };
  teams: {
    create(input: Omit<TeamRecord, 'id'>): Promise<TeamRecord>;
    list(workspaceId: string, page: PageRequest): Promise<PageResult<TeamRecord>>;
    /** Ids of those teams that exist in the workspace. */
    existing(workspaceId: string, ids: string[]): Promise<string[]>;
  };
  labels: {
    list(workspaceId: string): Promise<string[]>;
    ensure(workspaceId: string, names: string[]): Promise<void>;
  };
}

declare module '../shared/store.js' {
  interface Repos extends PeopleRepos {}
}
