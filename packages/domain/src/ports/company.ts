import type { Plan, Scope } from '../schemas/company.js';
import type { PageRequest, PageResult } from './paging.js';

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
/** Repositories of company. */
export interface CompanyRepos {
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
    /**
     * The key of a token hash with its user (and teams) and workspace, read together in one query; `webhooks` says
     * whether the workspace has an active webhook subscription, so a write of this request can skip looking for one.
     */
    authenticate(tokenHash: string): Promise<{ key: KeyRecord; user: UserRecord; workspace: WorkspaceRecord; webhooks: boolean } | undefined>;
    get(id: string): Promise<KeyRecord | undefined>;
    update(id: string, patch: { expiresAt: number | null }): Promise<KeyRecord | undefined>;
    revoke(id: string, at: number): Promise<boolean>;
  };
  labels: {
    list(workspaceId: string): Promise<string[]>;
    ensure(workspaceId: string, names: string[]): Promise<void>;
  };
}
