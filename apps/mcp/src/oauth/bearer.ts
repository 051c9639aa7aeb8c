import type { Request, RequestHandler, Response } from 'express';
import { type Deps, DomainError, hasScope, keys, type OAuthGrantRecord, oauth, type Scope } from '@tt/domain';
import { sendRpcError } from '../edge/host-guard.js';
import { resourceMetadataUrl, type OAuthSettings } from './settings.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The OAuth grant when the request came with an access token rather than an API key, and its key's scopes. */
      oauthGrant?: OAuthGrantRecord & { keyScopes: Scope[] };
    }
  }
}

const quoted = (v: string) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
const mcpPath = (req: Request) => (req.originalUrl.split('?')[0]!.endsWith('/readonly') ? '/mcp/readonly' : '/mcp');
const resourcePath = (resource: string) => {
  try {
    return new URL(resource).pathname.replace(/\/+$/, '');
  } catch {
    return resource;
  }
};

/** RFC 6750 §3 challenge pointing at the resource metadata (RFC 9728 §5.1), as MCP clients discover sign-in. */
export function challenge(req: Request, s: OAuthSettings, fields: Record<string, string>): string {
  const all = { ...fields, resource_metadata: resourceMetadataUrl(req, s, mcpPath(req)) };
  return `Bearer ${Object.entries(all).map(([k, v]) => `${k}=${quoted(v)}`).join(', ')}`;
}

/**
 * Authenticates /mcp with an OAuth access token (`tto_`) or an API key, one database round trip either way. A 401
 * carries WWW-Authenticate: without credentials the scopes to ask for, with a bad one `error="invalid_token"`.
 */
export function authenticateMcp(deps: Deps, s: OAuthSettings): RequestHandler {
  return async (req, res, next) => {
    try {
      const authorization = req.headers.authorization;
      if (oauth.isAccessToken(authorization)) {
        const { actor, grant, keyScopes } = await oauth.authenticateAccess({ authorization, ip: req.ip }, deps);
        // RFC 8707 audience: a token is good only on the endpoint it was asked for (a sign-in to /mcp/readonly does
        // not open /mcp). A grant asked without a resource is good on both.
        if (grant.resource !== null && resourcePath(grant.resource) !== mcpPath(req)) {
          throw new DomainError('invalid_key', `The access token is for ${grant.resource}, not this endpoint; sign in to ${mcpPath(req)}`);
        }
        req.actor = actor;
        req.oauthGrant = { ...grant, keyScopes };
      } else {
        req.actor = await keys.authenticate({ authorization, ip: req.ip, surface: 'mcp' }, deps);
      }
      next();
    } catch (e) {
      if (e instanceof DomainError && e.status === 401) {
        const fields: Record<string, string> = e.code === 'unauthorized'
          ? { scope: oauth.endpointScopes(mcpPath(req) === '/mcp/readonly').join(' ') }
          : { error: 'invalid_token', error_description: e.message };
        res.setHeader('www-authenticate', challenge(req, s, fields));
      }
      next(e);
    }
  };
}

/** The tools a tools/call names, and the scopes each needs. */
export type ToolScopes = (name: string) => readonly Scope[] | undefined;

/**
 * Step-up (MCP authorization, scope challenge): a tools/call under an OAuth grant that lacks a scope the tool needs,
 * while the grant's key has it, is answered 403 with `error="insufficient_scope"` naming the scope, so the client can
 * ask the person for more. When the key itself lacks it, signing in again cannot help: the call gets the tool-result
 * refusal an API key gets (naming the scope). API keys always get that refusal (a key cannot be stepped up).
 */
export function scopeStepUp(scopesOf: ToolScopes, s: OAuthSettings): RequestHandler {
  return (req: Request, res: Response, next) => {
    if (!req.oauthGrant || !req.actor) return next();
    const messages: unknown[] = Array.isArray(req.body) ? req.body : [req.body];
    for (const m of messages) {
      const msg = m as { method?: unknown; params?: { name?: unknown } } | null;
      if (msg?.method !== 'tools/call' || typeof msg.params?.name !== 'string') continue;
      const missing = (scopesOf(msg.params.name) ?? []).filter((scope) => !hasScope(req.actor!, scope));
      if (!missing.length || !missing.every((scope) => req.oauthGrant!.keyScopes.includes(scope))) continue;
      const text = `insufficient_scope: ${msg.params.name} needs the scope ${missing.join(' and ')}, which this sign-in lacks; sign in again granting it`;
      res.setHeader('www-authenticate', challenge(req, s, { error: 'insufficient_scope', scope: missing.join(' '), error_description: text }));
      return sendRpcError(res, 403, text);
    }
    next();
  };
}
