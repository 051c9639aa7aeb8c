import type { Plan } from '../shared/index.js';
import type { Scope } from './schema.js';

/** Records as the store keeps them: the workspace, the person acting and their key. */
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

/** A key found by its token hash, with its user, workspace and whether the workspace has active webhooks. */
export interface KeyLookup {
  key: KeyRecord;
  user: UserRecord;
  workspace: WorkspaceRecord;
  webhooks: boolean;
}

export interface KeyRepo {
  create(input: Omit<KeyRecord, 'id' | 'revokedAt' | 'createdAt'> & { tokenHash: string }): Promise<KeyRecord>;
  byHash(tokenHash: string): Promise<KeyRecord | undefined>;
  /**
   * The key of a token hash with its user (and teams) and workspace, read together in one query; `webhooks` says
   * whether the workspace has an active webhook subscription, so a write of this request can skip looking for one.
   */
  authenticate(tokenHash: string): Promise<KeyLookup | undefined>;
  get(id: string): Promise<KeyRecord | undefined>;
  update(id: string, patch: { expiresAt: number | null }): Promise<KeyRecord | undefined>;
  revoke(id: string, at: number): Promise<boolean>;
}

declare module '../shared/store.js' {
  interface Repos {
    keys: KeyRepo;
  }
}
