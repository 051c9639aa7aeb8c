import { type Actor, type AuthRequest, bearerToken, checkKeyUse, hashToken, OAUTH_PREFIX, type Scope } from '../keys/index.js';
import { type Deps, DomainError } from '../shared/index.js';
import type { OAuthGrantRecord } from './ports.js';

/** True when a bearer token is one of our OAuth access tokens (the MCP gateway then authenticates it here). */
export const isAccessToken = (authorization: string | undefined): boolean => (bearerToken(authorization) ?? '').startsWith(OAUTH_PREFIX.access);

/**
 * Resolves an OAuth access token to the key's actor with the grant's scopes (never more than the key's now): one
 * round trip, never cached, so a revoked grant, a revoked or expired key or a deleted user fails on the next request
 * in every process. The key's project restriction, address allowlist, plan and member-key switch apply as for the key.
 */
export async function authenticateAccess(
  req: Omit<AuthRequest, 'surface'>,
  deps: Deps,
): Promise<{ actor: Actor; grant: OAuthGrantRecord; keyScopes: Scope[] }> {
  const token = bearerToken(req.authorization) ?? '';
  const found = token.startsWith(OAUTH_PREFIX.access) ? await deps.store.oauth.authenticate(hashToken(token)) : undefined;
  if (!found || found.token.kind !== 'access') throw new DomainError('invalid_key', 'The access token is not valid');
  if (found.grant.revokedAt !== null) throw new DomainError('invalid_key', 'The access token\'s grant was revoked; sign in again');
  if (found.token.expiresAt <= deps.now()) throw new DomainError('key_expired', 'The access token has expired; refresh it');
  const actor = checkKeyUse(found, { ip: req.ip, surface: 'mcp' }, deps);
  const scopes = found.grant.scopes.filter((s) => actor.key.scopes.includes(s));
  const via = { channel: 'mcp' as const, keyId: actor.key.id, clientName: found.grant.clientName };
  return { actor: { ...actor, key: { ...actor.key, scopes }, via }, grant: found.grant, keyScopes: actor.key.scopes };
}
