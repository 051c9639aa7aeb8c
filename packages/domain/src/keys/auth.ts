import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { type Deps, DomainError, PLAN_LIMITS } from '../shared/index.js';
import type { Actor } from './actor.js';
import { ipAllowed } from './cidr.js';
import type { KeyLookup } from './ports.js';

export const TOKEN_PREFIX = 'tt_';
/** Prefixes of the secrets an MCP sign-in (OAuth) hands out: access and refresh tokens, authorization codes. */
export const OAUTH_PREFIX = { access: 'tto_', refresh: 'ttr_', code: 'ttc_' } as const;

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** A fresh secret token; only its hash is stored. */
export const newToken = (prefix: string = TOKEN_PREFIX): string => prefix + randomBytes(32).toString('base64url');

/** Constant-time comparison of two secrets. */
export function sameSecret(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

export interface AuthRequest {
  /** The raw Authorization header value. */
  authorization: string | undefined;
  ip: string | undefined;
  /** `api` for REST, `mcp` for the tool server (business plan only). */
  surface: 'api' | 'mcp';
}

/** Reads the bearer token of an Authorization header; undefined when none was sent. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : '';
}

/** The hash of the API key a request sends as its bearer token, or the spec's auth failure when it sends none. */
export function apiKeyHash(req: Pick<AuthRequest, 'authorization'>): string {
  const token = bearerToken(req.authorization);
  if (token === undefined) throw new DomainError('unauthorized', 'Send the API key as Authorization: Bearer <key>');
  if (!token) throw new DomainError('invalid_key', 'The Authorization header is not a Bearer key');
  if (token.startsWith(OAUTH_PREFIX.access) || token.startsWith(OAUTH_PREFIX.refresh)) {
    throw new DomainError('invalid_key', 'An OAuth token is valid only on the MCP endpoint; send an API key');
  }
  return hashToken(token);
}

/** Resolves a bearer key to the acting user, or throws the spec's auth failure. */
export async function authenticate(req: AuthRequest, deps: Deps): Promise<Actor> {
  // One round trip, never cached: a revoked key or a deleted user fails on the very next request in every process.
  const found = await deps.store.keys.authenticate(apiKeyHash(req));
  return checkKeyUse(found, req, deps);
}

/**
 * The checks of a key found by its hash (revoked, user deleted, expired, address, plan, member keys), shared by API keys
 * and the OAuth grants made from them: a grant can never do what its key cannot do at this moment.
 */
export function checkKeyUse(found: KeyLookup | undefined, req: Pick<AuthRequest, 'ip' | 'surface'>, deps: Pick<Deps, 'now'>): Actor {
  if (!found || found.key.revokedAt !== null) throw new DomainError('invalid_key', 'The API key is not valid');
  const { key, user, workspace, webhooks } = found;
  if (user.deletedAt !== null) throw new DomainError('invalid_key', 'The API key is not valid');
  if (key.expiresAt !== null && key.expiresAt <= deps.now()) throw new DomainError('key_expired', 'The API key has expired');
  if (key.allowedIps.length > 0 && !ipAllowed(req.ip, key.allowedIps)) {
    throw new DomainError('ip_not_allowed', `Requests from ${req.ip ?? 'this address'} are not allowed for this key`);
  }
  const limits = PLAN_LIMITS[workspace.plan];
  if (!limits.api) throw new DomainError('plan_required', `The ${workspace.plan} plan does not include the API; upgrade to team or business`);
  if (req.surface === 'mcp' && !limits.mcp) {
    throw new DomainError('plan_required', 'The agent tool server needs the business plan');
  }
  if (!workspace.memberKeysEnabled && !user.isAdmin) {
    throw new DomainError('api_disabled', "An administrator has disabled members' API keys");
  }
  const via = { channel: req.surface === 'mcp' ? ('mcp' as const) : ('rest' as const), keyId: key.id, clientName: null };
  return { workspace, user, key: { id: key.id, scopes: key.scopes, projectIds: key.projectIds }, webhooks, via };
}
