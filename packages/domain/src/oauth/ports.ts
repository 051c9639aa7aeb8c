import type { KeyLookup, Scope } from '../keys/index.js';

/** A registered (DCR) client. */
export interface OAuthClientRecord {
  id: string;
  name: string;
  redirectUris: string[];
  metadata: Record<string, unknown>;
  createdAt: number;
}

/** An authorization code, stored by its hash: what the person approved, bound to client, redirect, PKCE and resource. */
export interface OAuthCodeRecord {
  codeHash: string;
  keyId: string;
  clientId: string;
  clientName: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string | null;
  scopes: Scope[];
  expiresAt: number;
  usedAt: number | null;
  /** The grant the code was exchanged for (revoked when the code is presented again). */
  grantId: string | null;
  createdAt: number;
}

/** What a person allowed a client: the key it acts with and the scopes (never more than the key's). */
export interface OAuthGrantRecord {
  id: string;
  keyId: string;
  userId: string;
  clientId: string;
  clientName: string;
  scopes: Scope[];
  resource: string | null;
  createdAt: number;
  revokedAt: number | null;
}

export interface OAuthTokenRecord {
  tokenHash: string;
  grantId: string;
  kind: 'access' | 'refresh';
  expiresAt: number;
  /** A refresh token is used once: set when it is exchanged. */
  usedAt: number | null;
  createdAt: number;
}

/** An access token found by its hash, with its grant and the grant's key, user and workspace (one round trip). */
export interface OAuthTokenLookup extends KeyLookup {
  token: OAuthTokenRecord;
  grant: OAuthGrantRecord;
}

/** A one-use thing (code or refresh token) taken: the record, and whether it had been taken before. */
export interface Taken<T> {
  record: T;
  reused: boolean;
}

export interface OAuthRepo {
  createClient(c: OAuthClientRecord): Promise<void>;
  getClient(id: string): Promise<OAuthClientRecord | undefined>;
  createCode(c: Omit<OAuthCodeRecord, 'usedAt' | 'grantId'>): Promise<void>;
  /** Marks the code used and returns it; `reused` when it had been used already. */
  takeCode(codeHash: string, at: number): Promise<Taken<OAuthCodeRecord> | undefined>;
  setCodeGrant(codeHash: string, grantId: string): Promise<void>;
  createGrant(g: Omit<OAuthGrantRecord, 'revokedAt'>): Promise<void>;
  getGrant(id: string): Promise<OAuthGrantRecord | undefined>;
  /** A user's grants that are not revoked, newest first. */
  listGrants(userId: string): Promise<OAuthGrantRecord[]>;
  revokeGrant(id: string, at: number): Promise<boolean>;
  /** Stores tokens (an access and a refresh token, issued together) in one statement. */
  addTokens(tokens: Array<Omit<OAuthTokenRecord, 'usedAt'>>): Promise<void>;
  /** Marks the refresh token used and returns it; `reused` when it had been used already. */
  takeRefresh(tokenHash: string, at: number): Promise<Taken<OAuthTokenRecord> | undefined>;
  tokenByHash(tokenHash: string): Promise<OAuthTokenRecord | undefined>;
  /** The access token of a request with its grant, key, user and workspace: one query, never cached. */
  authenticate(tokenHash: string): Promise<OAuthTokenLookup | undefined>;
  /**
   * Deletes codes that expired before `codesBefore`, tokens that expired before `tokensBefore`, grants revoked
   * before `grantsRevokedBefore` (with their tokens), grants left without a token, and registered clients never used
   * (no grant was ever made with them) registered before `clientsUnusedBefore`; returns the rows deleted.
   */
  prune(p: { codesBefore: number; tokensBefore: number; grantsRevokedBefore: number; clientsUnusedBefore: number }): Promise<number>;
  /** A server secret by name, made (random) on first use and the same for every process afterwards. */
  secret(name: string, fresh: string): Promise<string>;
}

/** The network side of client-id metadata documents. */
export interface ClientDocumentPorts {
  /** Every address of a host name. */
  resolve(host: string): Promise<string[]>;
  /** GET the URL from exactly this address (TLS still checks the host name); throws on failure, a size over the limit or the time limit. */
  fetch(url: string, address: string, limits: { timeoutMs: number; maxBytes: number }): Promise<{ status: number; body: string }>;
}

declare module '../shared/store.js' {
  interface Repos {
    oauth: OAuthRepo;
  }
}
