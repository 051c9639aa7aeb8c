import { createHash, createHmac } from 'node:crypto';
import { newToken, OAUTH_PREFIX, SCOPES, type Scope, sameSecret } from '../keys/index.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

/** How long each thing of the sign-in lives. */
export const OAUTH_LIFETIMES = {
  /** An authorization code: exchanged within a minute, once. */
  codeMs: MINUTE,
  /** An access token. */
  accessMs: 60 * MINUTE,
  /** A refresh token; each use replaces it with a new one of the same life. */
  refreshMs: 30 * DAY,
  /** How long a used or expired code is kept, so presenting it again still revokes its grant. */
  keepUsedCodeMs: DAY,
  /** How long a revoked grant is kept (the operator's record), then deleted with its tokens. */
  keepRevokedGrantMs: 30 * DAY,
  /** How long a registered client nobody has signed in with is kept (anyone may register one). */
  keepUnusedClientMs: 7 * DAY,
  /** The consent form: submitted within ten minutes of being shown. */
  formMs: 10 * MINUTE,
  /** A client-id metadata document stays cached this long. */
  clientDocumentMs: 5 * MINUTE,
} as const;

/** A fresh opaque secret with its prefix (keys' OAUTH_PREFIX); only its sha256 is stored (like API keys). */
export const newOAuthSecret = (kind: keyof typeof OAUTH_PREFIX): string => newToken(OAUTH_PREFIX[kind]);

/** A failure of the OAuth protocol, with its RFC error code; the app turns it into JSON, a redirect or a page. */
export class OAuthProblem extends Error {
  constructor(
    readonly code:
      | 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'invalid_scope' | 'invalid_target' | 'unsupported_grant_type'
      | 'invalid_redirect_uri' | 'invalid_client_metadata' | 'access_denied',
    message: string,
  ) {
    super(message);
    this.name = 'OAuthProblem';
  }
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Why a redirect URI may not be registered, or null when it may: `https`, or `http` on a loopback host (any port, for
 * native apps, RFC 8252); never a fragment, user info, or another scheme (javascript:, data:, custom schemes).
 */
export function redirectUriProblem(uri: string): string | null {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return `${uri} is not an absolute URL`;
  }
  if (u.hash || uri.includes('#')) return `${uri} must not have a fragment`;
  if (u.username || u.password) return `${uri} must not carry a user name or password`;
  if (u.protocol === 'https:') return u.hostname ? null : `${uri} must name a host`;
  if (u.protocol === 'http:') return LOOPBACK.has(u.hostname) ? null : `${uri}: http is allowed only on a loopback host (127.0.0.1, [::1], localhost); use https`;
  return `${uri}: the scheme ${u.protocol} is not allowed; use https (or http on a loopback host)`;
}

/** The scopes of a `scope` parameter (space-separated); names we do not know are dropped. */
export function parseScopes(scope: string | undefined): Scope[] {
  if (!scope) return [];
  const known = new Set<string>(SCOPES);
  return [...new Set(scope.split(/\s+/).filter((s) => known.has(s)))] as Scope[];
}

/** The scopes an MCP endpoint can use: the read-only endpoint (`/mcp/readonly`) only the read scopes. */
export const endpointScopes = (readOnly: boolean): Scope[] => (readOnly ? SCOPES.filter((s) => s.endsWith(':read')) : [...SCOPES]);

/**
 * The scopes asked of an endpoint: on the read-only one only its read scopes (none of those asked: all of them), so
 * its consent page never lists a right it cannot use.
 */
export function scopesAsked(scope: string | undefined, readOnly: boolean): Scope[] {
  const asked = parseScopes(scope);
  if (!readOnly) return asked;
  const read = endpointScopes(true);
  const kept = asked.filter((s) => read.includes(s));
  return kept.length ? kept : read;
}

/**
 * The scopes of a grant: the requested ones the key has (asking for a right the key lacks drops it rather than
 * failing, so a client that asks for every scope still signs in with what the key allows); nothing asked = the key's.
 */
export function grantScopes(requested: readonly Scope[], keyScopes: readonly Scope[]): Scope[] {
  if (requested.length === 0) return [...keyScopes];
  return SCOPES.filter((s) => requested.includes(s) && keyScopes.includes(s));
}

/** The PKCE S256 challenge of a verifier (RFC 7636): base64url(sha256(verifier)). */
export const pkceChallenge = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** A verifier is 43 to 128 unreserved characters, and its S256 challenge must equal the stored one. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) return false;
  return sameSecret(pkceChallenge(verifier), challenge);
}

/** A code challenge as a client sends it: base64url of 32 bytes (43 characters). */
export const validChallenge = (challenge: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(challenge);

/** The same resource URL, whatever the case of the host or a trailing slash. */
export function sameResource(a: string, b: string): boolean {
  const norm = (v: string) => {
    try {
      const u = new URL(v);
      return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${u.search}`;
    } catch {
      return v;
    }
  };
  return norm(a) === norm(b);
}

/** What a code was bound to when it was issued. */
export interface CodeBinding {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string | null;
  expiresAt: number;
}

/** What the token request presents with the code. */
export interface CodePresentation {
  clientId: string;
  redirectUri?: string | undefined;
  verifier: string | undefined;
  resource?: string | undefined;
  now: number;
}

/** Why a code cannot be exchanged (each one is `invalid_grant`), or null when it can. */
export function codeProblem(code: CodeBinding, p: CodePresentation): string | null {
  if (code.expiresAt <= p.now) return 'the authorization code has expired';
  if (code.clientId !== p.clientId) return 'the authorization code was issued to another client';
  if (p.redirectUri !== undefined && p.redirectUri !== code.redirectUri) return 'redirect_uri differs from the one of the authorization request';
  if (!p.verifier || !pkceMatches(p.verifier, code.codeChallenge)) return 'code_verifier does not match the code_challenge';
  if (p.resource !== undefined && code.resource !== null && !sameResource(p.resource, code.resource)) {
    return 'resource differs from the one of the authorization request';
  }
  return null;
}

/** Why a refresh token cannot be used (each one is `invalid_grant`), or null when it can. */
export function refreshProblem(
  t: { expiresAt: number; grantClientId: string; grantRevokedAt: number | null },
  p: { clientId: string; now: number },
): string | null {
  if (t.grantRevokedAt !== null) return 'the grant was revoked';
  if (t.expiresAt <= p.now) return 'the refresh token has expired';
  if (t.grantClientId !== p.clientId) return 'the refresh token was issued to another client';
  return null;
}

/** The consent form's fields that the signature covers: everything the approval acts on. */
export interface SignedForm {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  state: string;
  resource: string;
}

/** The HMAC of the time a form was shown and the authorization parameters it carries. */
const formMac = (secret: string, f: SignedForm, issuedAt: number) =>
  createHmac('sha256', secret).update(JSON.stringify([issuedAt, f.clientId, f.redirectUri, f.codeChallenge, f.scope, f.state, f.resource])).digest('base64url');

/**
 * The consent form's CSRF token: `<issued at>.<HMAC of the time and the authorization parameters>` under the server
 * secret. Stateless, so any process checks what another showed; a form for other parameters, or older than
 * `formMs`, is refused.
 */
export function signForm(secret: string, form: SignedForm, now: number): string {
  return `${now}.${formMac(secret, form, now)}`;
}

/** Why a submitted consent form is refused (a 400 page), or null when its token is ours, fresh and for these parameters. */
export function formProblem(secret: string, form: SignedForm, token: string | undefined, now: number): string | null {
  const m = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(token ?? '');
  if (!m) return 'the form has no valid security token; open the sign-in link again';
  const issuedAt = Number(m[1]);
  if (!sameSecret(formMac(secret, form, issuedAt), m[2]!)) return 'the form\'s security token does not match; open the sign-in link again';
  if (now - issuedAt > OAUTH_LIFETIMES.formMs || issuedAt > now + MINUTE) return 'the form has expired; open the sign-in link again';
  return null;
}
