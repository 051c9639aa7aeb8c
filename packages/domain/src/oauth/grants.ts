import { randomBytes } from 'node:crypto';
import { type ActingAs, type AuditRepo, type Deps, notFound, recordAudit } from '../shared/index.js';
import { type Actor, authenticate as authenticateKey, hashToken, type Scope } from '../keys/index.js';
import type { OAuthClient } from './client-metadata.js';
import type { OAuthGrantRecord } from './ports.js';
import { codeProblem, grantScopes, refreshProblem, newOAuthSecret, OAUTH_LIFETIMES, OAuthProblem } from './rules.js';
import type { OAuthGrant } from './schema.js';

/** The grant's user acting through MCP with the grant's key and client: who an audit entry about the grant names. */
const grantActor = (g: Pick<OAuthGrantRecord, 'userId' | 'keyId' | 'clientName'>, workspaceId: string): ActingAs => ({
  workspace: { id: workspaceId }, user: { id: g.userId }, key: { id: g.keyId }, via: { channel: 'mcp', keyId: g.keyId, clientName: g.clientName },
});
const grantDetails = (g: Pick<OAuthGrantRecord, 'userId' | 'keyId' | 'clientId' | 'clientName' | 'scopes'>) => ({
  userId: g.userId, keyId: g.keyId, clientId: g.clientId, clientName: g.clientName, scopes: g.scopes,
});

/** Audit: a grant revoked, by the operator (actor null), its own client, or the service (a reused code or token). */
async function auditRevoked(
  repos: { audit: AuditRepo; keys: Deps['store']['keys'] }, deps: Deps, g: OAuthGrantRecord, by: 'operator' | 'client' | 'reuse',
): Promise<void> {
  const key = await repos.keys.get(g.keyId);
  const actor = by === 'client' && key ? grantActor(g, key.workspaceId) : null;
  await recordAudit(repos, deps, actor, {
    workspaceId: key?.workspaceId ?? null, action: 'oauth.grant_revoked', targetType: 'oauth_grant', targetId: g.id, details: { ...grantDetails(g), by },
  });
}

/** The token endpoint's answer (RFC 6749 §5.1). */
export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** What the person approves on the consent page, already checked against the client (redirect URI, resource). */
export interface Approval {
  client: OAuthClient;
  redirectUri: string;
  codeChallenge: string;
  scopes: Scope[];
  resource: string | null;
}

/**
 * The consent page's approval: signs in with the API key (every check a request with the key gets: revoked, expired,
 * address, plan, member keys) and issues a code for the scopes the key has. Throws the key's DomainError otherwise.
 */
export async function approve(a: Approval, apiKey: string, ip: string | undefined, deps: Deps): Promise<{ code: string; actor: Actor }> {
  const actor = await authenticateKey({ authorization: `Bearer ${apiKey.trim()}`, ip, surface: 'mcp' }, deps);
  const code = newOAuthSecret('code');
  const now = deps.now();
  await deps.store.oauth.createCode({
    codeHash: hashToken(code), keyId: actor.key.id, clientId: a.client.clientId, clientName: a.client.clientName,
    redirectUri: a.redirectUri, codeChallenge: a.codeChallenge, resource: a.resource, scopes: grantScopes(a.scopes, actor.key.scopes),
    expiresAt: now + OAUTH_LIFETIMES.codeMs, createdAt: now,
  });
  return { code, actor };
}

async function issueTokens(grant: Pick<OAuthGrantRecord, 'id' | 'scopes'>, deps: Deps): Promise<TokenAnswer> {
  const access = newOAuthSecret('access');
  const refresh = newOAuthSecret('refresh');
  const now = deps.now();
  await deps.store.oauth.addTokens([
    { tokenHash: hashToken(access), grantId: grant.id, kind: 'access', expiresAt: now + OAUTH_LIFETIMES.accessMs, createdAt: now },
    { tokenHash: hashToken(refresh), grantId: grant.id, kind: 'refresh', expiresAt: now + OAUTH_LIFETIMES.refreshMs, createdAt: now },
  ]);
  return { access_token: access, token_type: 'Bearer', expires_in: OAUTH_LIFETIMES.accessMs / 1000, refresh_token: refresh, scope: grant.scopes.join(' ') };
}

/**
 * authorization_code grant: the code is used up whatever happens next; any mismatch (client, redirect URI, PKCE
 * verifier, resource, expiry) is `invalid_grant`. A code presented twice also revokes the grant it was exchanged for.
 */
export async function exchangeCode(
  clientId: string,
  p: { code: string; verifier: string | undefined; redirectUri?: string | undefined; resource?: string | undefined },
  deps: Deps,
): Promise<TokenAnswer> {
  const now = deps.now();
  const outcome = await deps.store.transaction(async (store) => {
    const tx = { ...deps, store };
    const taken = await store.oauth.takeCode(hashToken(p.code), now);
    if (!taken) return { problem: 'unknown authorization code' };
    const code = taken.record;
    if (taken.reused) {
      if (code.grantId) await store.oauth.revokeGrant(code.grantId, now);
      return { problem: 'the authorization code was already used; the grant made with it is revoked' };
    }
    const problem = codeProblem(code, { clientId, redirectUri: p.redirectUri, verifier: p.verifier, resource: p.resource, now });
    if (problem) return { problem };
    const key = await store.keys.get(code.keyId);
    if (!key || key.revokedAt !== null) return { problem: 'the API key of this sign-in is no longer valid' };
    const grant = { id: deps.newId('grant'), keyId: key.id, userId: key.userId, clientId, clientName: code.clientName, scopes: code.scopes, resource: code.resource, createdAt: now };
    await store.oauth.createGrant(grant);
    await store.oauth.setCodeGrant(code.codeHash, grant.id);
    await recordAudit(store, deps, grantActor(grant, key.workspaceId), {
      workspaceId: key.workspaceId, action: 'oauth.grant_made', targetType: 'oauth_grant', targetId: grant.id, details: grantDetails(grant),
    });
    return { tokens: await issueTokens(grant, tx) };
  });
  // The reuse's revocation commits before the failure is reported.
  if ('problem' in outcome) throw new OAuthProblem('invalid_grant', outcome.problem!);
  return outcome.tokens;
}

/**
 * refresh_token grant: the token is replaced by a new pair; presenting a used one again is `invalid_grant` and revokes
 * the whole grant (a stolen token and its thief lose access together). Asking for scopes beyond the grant is
 * `invalid_scope`; the new tokens carry the grant's scopes.
 */
export async function refresh(clientId: string, p: { refreshToken: string; scopes?: Scope[] | undefined }, deps: Deps): Promise<TokenAnswer> {
  const now = deps.now();
  const outcome = await deps.store.transaction(async (store) => {
    const taken = await store.oauth.takeRefresh(hashToken(p.refreshToken), now);
    if (!taken) return { problem: 'unknown refresh token' };
    const grant = await store.oauth.getGrant(taken.record.grantId);
    if (!grant) return { problem: 'unknown refresh token' };
    if (taken.reused) {
      if (await store.oauth.revokeGrant(grant.id, now)) await auditRevoked(store, deps, grant, 'reuse');
      return { problem: 'the refresh token was already used; the grant is revoked, sign in again' };
    }
    const problem = refreshProblem({ expiresAt: taken.record.expiresAt, grantClientId: grant.clientId, grantRevokedAt: grant.revokedAt }, { clientId, now });
    if (problem) return { problem };
    const key = await store.keys.get(grant.keyId);
    if (!key || key.revokedAt !== null || (key.expiresAt !== null && key.expiresAt <= now)) return { problem: 'the API key of this grant is no longer valid' };
    const extra = (p.scopes ?? []).filter((s) => !grant.scopes.includes(s));
    if (extra.length) return { scopeProblem: `the grant does not include ${extra.join(', ')}` };
    return { tokens: await issueTokens(grant, { ...deps, store }) };
  });
  if ('problem' in outcome) throw new OAuthProblem('invalid_grant', outcome.problem!);
  if ('scopeProblem' in outcome) throw new OAuthProblem('invalid_scope', outcome.scopeProblem!);
  return outcome.tokens;
}

/** RFC 7009: revokes the grant of an access or refresh token of this client; an unknown token is no error. */
export async function revokeToken(clientId: string, token: string, deps: Deps): Promise<void> {
  const t = await deps.store.oauth.tokenByHash(hashToken(token));
  if (!t) return;
  const grant = await deps.store.oauth.getGrant(t.grantId);
  if (!grant || grant.clientId !== clientId) return;
  const revoked = await deps.store.transaction(async (store) => {
    if (!(await store.oauth.revokeGrant(grant.id, deps.now()))) return false;
    await auditRevoked(store, deps, grant, 'client');
    return true;
  });
  if (revoked) deps.store.changes.note({ kind: 'access', grantId: grant.id });
}

export const presentGrant = (g: OAuthGrantRecord): OAuthGrant => ({
  id: g.id, userId: g.userId, keyId: g.keyId, clientId: g.clientId, clientName: g.clientName, scopes: g.scopes, createdAt: g.createdAt,
});

/** Operator: a user's active grants, newest first. */
export async function listGrants(userId: string, deps: Deps): Promise<OAuthGrant[]> {
  const user = await deps.store.users.getAny(userId);
  if (!user || user.deletedAt !== null) throw notFound('User');
  return (await deps.store.oauth.listGrants(userId)).map(presentGrant);
}

/** Operator: revokes a grant; its tokens stop working at once in every process. */
export async function revokeGrant(id: string, deps: Deps): Promise<void> {
  await deps.store.transaction(async (store) => {
    const grant = await store.oauth.getGrant(id);
    if (!grant || !(await store.oauth.revokeGrant(id, deps.now()))) throw notFound('Grant');
    await auditRevoked(store, deps, grant, 'operator');
  });
  deps.store.changes.note({ kind: 'access', grantId: id });
}

/**
 * Housekeeping: deletes what can no longer be used. A used or expired code is kept a day (presenting it again within
 * that day still revokes the grant made with it), a token until it expires (a rotated refresh token stays until then,
 * so its reuse is still caught), a revoked grant 30 days (then its tokens go with it), a grant whose tokens have
 * all expired (its refresh token lapsed unused for 30 days), and a registered client that nobody signed in with
 * within 7 days (an abandoned or unwanted registration; a client once used is kept).
 */
export function pruneGrants(deps: Deps): Promise<number> {
  const now = deps.now();
  return deps.store.oauth.prune({
    codesBefore: now - OAUTH_LIFETIMES.keepUsedCodeMs,
    tokensBefore: now,
    grantsRevokedBefore: now - OAUTH_LIFETIMES.keepRevokedGrantMs,
    clientsUnusedBefore: now - OAUTH_LIFETIMES.keepUnusedClientMs,
  });
}

/** The secret that signs consent forms, shared by every process through the store (made once; it never changes). */
export const formSecret = (deps: Deps): Promise<string> => deps.store.oauth.secret('consent-form', randomBytes(32).toString('base64url'));
