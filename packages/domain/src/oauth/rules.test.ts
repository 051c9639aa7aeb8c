import { describe, expect, it } from 'vitest';
import { codeProblem, endpointScopes, formProblem, grantScopes, newOAuthSecret, parseScopes, pkceChallenge, pkceMatches, redirectUriProblem, refreshProblem, sameResource, scopesAsked, signForm } from './rules.js';

const verifier = 'a'.repeat(43) + '-._~0123';

describe('redirectUriProblem', () => {
  it('accepts https and loopback http on any port', () => {
    for (const uri of ['https://claude.ai/api/mcp/auth_callback', 'http://127.0.0.1:33418/callback', 'http://localhost/cb', 'http://[::1]:8080/x?y=1']) {
      expect(redirectUriProblem(uri), uri).toBeNull();
    }
  });
  it('refuses other schemes, fragments, credentials and non-loopback http', () => {
    for (const uri of ['javascript:alert(1)', 'data:text/html,hi', 'https://a.example/cb#frag', 'http://example.com/cb', 'https://u:p@a.example/cb', 'myapp://cb', 'not a url', 'http://127.0.0.2.example.com/cb']) {
      expect(redirectUriProblem(uri), uri).not.toBeNull();
    }
  });
});

describe('scopes', () => {
  it('parses known scope names and drops the rest', () => {
    expect(parseScopes('tasks:read  docs:read openid tasks:read')).toEqual(['tasks:read', 'docs:read']);
    expect(parseScopes(undefined)).toEqual([]);
  });
  it('grants the requested scopes the key has; nothing asked = the key\'s', () => {
    expect(grantScopes(['tasks:read', 'tasks:write'], ['tasks:read', 'docs:read'])).toEqual(['tasks:read']);
    expect(grantScopes([], ['tasks:read', 'docs:read'])).toEqual(['tasks:read', 'docs:read']);
    expect(grantScopes(['time:write'], ['tasks:read'])).toEqual([]);
  });
  it('asks the read-only endpoint only for read scopes (none of them asked: all of them)', () => {
    expect(endpointScopes(true)).toEqual(['tasks:read', 'time:read', 'docs:read', 'meetings:read']);
    expect(endpointScopes(false)).toHaveLength(8);
    expect(scopesAsked('tasks:read tasks:write', true)).toEqual(['tasks:read']);
    expect(scopesAsked('tasks:write docs:write', true)).toEqual(endpointScopes(true));
    expect(scopesAsked('', true)).toEqual(endpointScopes(true));
    expect(scopesAsked('tasks:write docs:write', false)).toEqual(['tasks:write', 'docs:write']);
    expect(scopesAsked('', false)).toEqual([]);
  });
});

describe('PKCE S256', () => {
  it('matches the RFC 7636 example', () => {
    expect(pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });
  it('accepts the right verifier and refuses a wrong or malformed one', () => {
    const challenge = pkceChallenge(verifier);
    expect(pkceMatches(verifier, challenge)).toBe(true);
    expect(pkceMatches(verifier + 'x', challenge)).toBe(false);
    expect(pkceMatches('short', pkceChallenge('short'))).toBe(false);
  });
});

describe('codeProblem', () => {
  const code = { clientId: 'c1', redirectUri: 'https://a.example/cb', codeChallenge: pkceChallenge(verifier), resource: 'https://mcp.example/mcp', expiresAt: 2000 };
  const ok = { clientId: 'c1', redirectUri: 'https://a.example/cb', verifier, resource: 'https://MCP.example/mcp/', now: 1000 };
  it('accepts a matching presentation (redirect and resource optional)', () => {
    expect(codeProblem(code, ok)).toBeNull();
    expect(codeProblem(code, { ...ok, redirectUri: undefined, resource: undefined })).toBeNull();
  });
  it('names each mismatch', () => {
    expect(codeProblem(code, { ...ok, now: 2000 })).toMatch(/expired/);
    expect(codeProblem(code, { ...ok, clientId: 'c2' })).toMatch(/another client/);
    expect(codeProblem(code, { ...ok, redirectUri: 'https://a.example/cb2' })).toMatch(/redirect_uri/);
    expect(codeProblem(code, { ...ok, verifier: 'b'.repeat(43) })).toMatch(/code_verifier/);
    expect(codeProblem(code, { ...ok, verifier: undefined })).toMatch(/code_verifier/);
    expect(codeProblem(code, { ...ok, resource: 'https://other.example/mcp' })).toMatch(/resource/);
  });
});

describe('refreshProblem', () => {
  const t = { expiresAt: 2000, grantClientId: 'c1', grantRevokedAt: null };
  it('accepts a live token of the client and names each fault', () => {
    expect(refreshProblem(t, { clientId: 'c1', now: 1000 })).toBeNull();
    expect(refreshProblem({ ...t, grantRevokedAt: 5 }, { clientId: 'c1', now: 1000 })).toMatch(/revoked/);
    expect(refreshProblem(t, { clientId: 'c1', now: 2000 })).toMatch(/expired/);
    expect(refreshProblem(t, { clientId: 'c2', now: 1000 })).toMatch(/another client/);
  });
});

describe('sameResource', () => {
  it('ignores host case and a trailing slash only', () => {
    expect(sameResource('https://MCP.example/mcp/', 'https://mcp.example/mcp')).toBe(true);
    expect(sameResource('https://mcp.example/mcp/readonly', 'https://mcp.example/mcp')).toBe(false);
    expect(sameResource('http://mcp.example/mcp', 'https://mcp.example/mcp')).toBe(false);
  });
});

describe('consent form token', () => {
  const form = { clientId: 'c1', redirectUri: 'https://a.example/cb', codeChallenge: 'x'.repeat(43), scope: 'tasks:read', state: 's', resource: '' };
  it('accepts its own signature within ten minutes', () => {
    expect(formProblem('secret', form, signForm('secret', form, 1_000_000), 1_000_000 + 60_000)).toBeNull();
  });
  it('refuses a missing, forged, stale or re-targeted token', () => {
    const token = signForm('secret', form, 1_000_000);
    expect(formProblem('secret', form, undefined, 1_000_000)).toMatch(/no valid/);
    expect(formProblem('other', form, token, 1_000_000)).toMatch(/does not match/);
    expect(formProblem('secret', { ...form, redirectUri: 'https://evil.example/cb' }, token, 1_000_000)).toMatch(/does not match/);
    expect(formProblem('secret', form, token, 1_000_000 + 11 * 60_000)).toMatch(/expired/);
  });
});

describe('newOAuthSecret', () => {
  it('prefixes each kind so access tokens are told apart from API keys', () => {
    expect(newOAuthSecret('access')).toMatch(/^tto_[\w-]{43}$/);
    expect(newOAuthSecret('refresh')).toMatch(/^ttr_/);
    expect(newOAuthSecret('code')).toMatch(/^ttc_/);
  });
});
