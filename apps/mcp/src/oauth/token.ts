import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { type ClientDirectory, type Deps, oauth, OAuthProblem } from '@tt/domain';
import { openCors } from '../edge/cors.js';

const PRUNE_EVERY_MS = 10 * 60_000;

/** An RFC 6749 §5.2 error: 400 with `error` and `error_description` (500 for ours). */
class TokenError extends Error {
  constructor(readonly code: string, message: string, readonly status = 400) {
    super(message);
  }
}

const issues = (e: z.ZodError) => e.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
const parse = <T extends z.ZodType>(schema: T, body: unknown): z.output<T> => {
  const r = schema.safeParse(body);
  if (!r.success) throw new TokenError('invalid_request', issues(r.error));
  return r.data;
};

const ClientAuth = z.object({ client_id: z.string(), client_secret: z.string().optional() });
const Grant = z.object({ grant_type: z.string() });
const CodeGrant = z.object({ code: z.string(), code_verifier: z.string(), redirect_uri: z.string().optional(), resource: z.url().optional() });
const RefreshGrant = z.object({ refresh_token: z.string(), scope: z.string().optional(), resource: z.url().optional() });
const Revocation = z.object({ token: z.string(), token_type_hint: z.string().optional() });

/**
 * One endpoint of the sign-in's back channel (token, revocation): POST only, form-encoded, the public client named
 * by client_id (clients are public: `token_endpoint_auth_method: none`), `Cache-Control: no-store`, and failures as
 * RFC 6749 JSON: our protocol failures (OAuthProblem) with their code, anything else a logged 500 `server_error`.
 */
function endpoint(clients: ClientDirectory, deps: Deps, run: (clientId: string, body: Record<string, unknown>) => Promise<unknown>): RequestHandler[] {
  const onlyPost: RequestHandler = (req, res, next) => {
    if (req.method === 'POST') return next();
    res.status(405).set('allow', 'POST').json({ error: 'method_not_allowed', error_description: `The method ${req.method} is not allowed for this endpoint` });
  };
  const handle = async (req: Request, res: Response) => {
    res.setHeader('cache-control', 'no-store');
    try {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const { client_id: clientId } = parse(ClientAuth, body);
      // An unknown or unverifiable client is invalid_client, never a 500.
      const client = await clients.get(clientId, deps).catch((e: unknown) => {
        if (e instanceof OAuthProblem) return undefined;
        throw e;
      });
      if (!client) throw new TokenError('invalid_client', 'Invalid client_id');
      res.status(200).json((await run(client.clientId, body)) ?? {});
    } catch (e) {
      if (e instanceof TokenError) return void res.status(e.status).json({ error: e.code, error_description: e.message });
      if (e instanceof OAuthProblem) return void res.status(400).json({ error: e.code, error_description: e.message });
      req.log?.error({ err: e }, 'OAuth endpoint failed');
      res.status(500).json({ error: 'server_error', error_description: 'Internal Server Error' });
    }
  };
  return [onlyPost, express.urlencoded({ extended: false, limit: '16kb' }), handle];
}

/** grant_type authorization_code (PKCE checked by the domain with the rest of the code's binding) or refresh_token. */
const token = (deps: Deps) => async (clientId: string, body: Record<string, unknown>) => {
  const { grant_type: grantType } = parse(Grant, body);
  if (grantType === 'authorization_code') {
    const g = parse(CodeGrant, body);
    return oauth.exchangeCode(clientId, { code: g.code, verifier: g.code_verifier, redirectUri: g.redirect_uri, resource: g.resource === undefined ? undefined : new URL(g.resource).href }, deps);
  }
  if (grantType === 'refresh_token') {
    const g = parse(RefreshGrant, body);
    return oauth.refresh(clientId, { refreshToken: g.refresh_token, scopes: g.scope !== undefined ? oauth.parseScopes(g.scope) : undefined }, deps);
  }
  throw new TokenError('unsupported_grant_type', 'The grant type is not supported by this authorization server.');
};

/**
 * Token (RFC 6749), revocation (RFC 7009) and registration (RFC 7591) endpoints, each limited per client address by
 * our limiter (`limit`; Redis-shared). Our own code: the v2 SDK serves resource servers only, not authorization servers.
 */
export function tokenRoutes(app: Express, clients: ClientDirectory, deps: Deps, limit: RequestHandler): void {
  // Housekeeping rides on the token endpoint, at most once per PRUNE_EVERY_MS per process, never in the way.
  let nextPrune = 0;
  const prune: RequestHandler = (req, _res, next) => {
    if (deps.now() >= nextPrune) {
      nextPrune = deps.now() + PRUNE_EVERY_MS;
      oauth.pruneGrants(deps).catch((err: Error) => req.log?.warn({ err: err.message }, 'pruning OAuth codes and tokens failed'));
    }
    next();
  };
  app.use('/oauth/token', openCors, limit, prune, ...endpoint(clients, deps, token(deps)));
  app.use('/oauth/revoke', openCors, limit, ...endpoint(clients, deps, async (clientId, body) => {
    await oauth.revokeToken(clientId, parse(Revocation, body).token, deps);
    return {};
  }));
  // Our own registration handler: the SDK's checks redirect URIs as plain URLs (javascript: passes as a URL, and a
  // refused one is invalid_client_metadata where RFC 7591 says invalid_redirect_uri), and it issues client secrets.
  app.use('/oauth/register', openCors);
  app.post('/oauth/register', limit, express.json({ limit: '16kb' }), async (req, res, next) => {
    res.setHeader('cache-control', 'no-store');
    try {
      res.status(201).json(await oauth.registerClient(req.body, deps));
    } catch (e) {
      if (e instanceof OAuthProblem) return void res.status(400).json({ error: e.code, error_description: e.message });
      next(e);
    }
  });
}
