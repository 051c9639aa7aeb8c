import type { RequestHandler } from 'express';
import { z } from 'zod';

/**
 * The gateway's CORS, in two policies: the sign-in's endpoints answer any origin (`openCors`); /mcp answers the
 * origins of MCP_ALLOWED_ORIGINS (`mcpCors`).
 *
 * Browser-based MCP clients (a web app, MCP Inspector in direct mode) call /mcp cross-origin: the origins named in
 * MCP_ALLOWED_ORIGINS may, and get CORS headers. Every request still needs a bearer token (an API key or an OAuth
 * access token) and no cookie is ever read, so an allowed origin gains nothing a page could use without the token;
 * the Host check against DNS rebinding applies as before.
 */
export type AllowedOrigins = '*' | ReadonlySet<string>;

const parseOrigin = (value: string): string | undefined => {
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
};

const entries = (value: string | undefined) => (value ?? '').split(',').map((o) => o.trim()).filter(Boolean);

/** The variable, validated with the others at start-up: a bad entry is one line naming it. */
export const BrowserConfigShape = {
  MCP_ALLOWED_ORIGINS: z
    .string()
    .optional()
    .refine((v) => entries(v).every((o) => o === '*' || parseOrigin(o) !== undefined), 'must be * or a comma list of origins such as https://app.example.com (scheme, host and port; no path)'),
};

/** The allowed origins of MCP_ALLOWED_ORIGINS (`*`: any); entries that are not origins are left out. */
export function allowedOrigins(value: string | undefined): AllowedOrigins {
  const list = entries(value);
  if (list.includes('*')) return '*';
  return new Set(list.map(parseOrigin).filter((o): o is string => o !== undefined));
}

export const originAllowed = (origin: string, allowed: AllowedOrigins): boolean => allowed === '*' || allowed.has(origin);

/**
 * For the sign-in: browser-based clients read its discovery documents and call its token, registration and revocation
 * endpoints cross-origin, from any origin (none of them reads a cookie).
 */
export const openCors: RequestHandler = (req, res, next) => {
  res.setHeader('access-control-allow-origin', '*');
  res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
  res.setHeader('access-control-allow-headers', 'authorization, content-type, mcp-protocol-version');
  res.setHeader('access-control-max-age', '86400');
  if (req.method === 'OPTIONS') return void res.status(204).end();
  next();
};

/** Request headers a browser client may send to /mcp. */
const REQUEST_HEADERS = 'authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id, x-mcp-readonly, x-mcp-toolsets, x-request-id';
/** Response headers a browser client may read: the sign-in challenge, limits and retries, the request id. */
const EXPOSED_HEADERS = 'www-authenticate, retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, x-request-id, mcp-session-id, mcp-protocol-version';

/**
 * CORS for /mcp: a request from an allowed origin gets `Access-Control-Allow-Origin` with that origin and the
 * headers it may read; its preflight is answered 204. Requests without an Origin, or from another origin, pass
 * untouched (the host guard before it refuses an origin that is neither allowed here nor a host of MCP_ALLOWED_HOSTS).
 */
export function mcpCors(allowed: AllowedOrigins): RequestHandler {
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin === undefined || !originAllowed(origin, allowed)) return next();
    res.vary('Origin');
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
    if (req.method !== 'OPTIONS') return next();
    res.setHeader('access-control-allow-methods', 'POST, GET, DELETE, OPTIONS');
    res.setHeader('access-control-allow-headers', REQUEST_HEADERS);
    res.setHeader('access-control-max-age', '86400');
    res.status(204).end();
  };
}
