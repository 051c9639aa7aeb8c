import { CustomOAuthError, InvalidClientError, InvalidGrantError, InvalidScopeError, ServerError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import type { OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import express, { type Express, type RequestHandler } from 'express';
import { type ClientDirectory, type Deps, oauth, OAuthProblem } from '@tt/domain';
import { openCors } from '../edge/cors.js';

const PRUNE_EVERY_MS = 10 * 60_000;

/** Our protocol failures as the SDK's errors, which its handlers answer as RFC 6749 JSON (400). */
function sdkError(e: unknown): unknown {
  if (!(e instanceof OAuthProblem)) return e;
  if (e.code === 'invalid_grant') return new InvalidGrantError(e.message);
  if (e.code === 'invalid_scope') return new InvalidScopeError(e.message);
  if (e.code === 'invalid_client') return new InvalidClientError(e.message);
  return new CustomOAuthError(e.code, e.message);
}
const wrap = async <T>(run: () => Promise<T>): Promise<T> => {
  try {
    return await run();
  } catch (e) {
    throw sdkError(e);
  }
};

/**
 * The domain's sign-in as the SDK's provider, for its token and revocation handlers (form parsing, client_id check,
 * grant_type dispatch, RFC 6749 error bodies, CORS, no-store). PKCE is checked by the domain together with the rest of
 * the code's binding in one transaction (skipLocalPkceValidation), so a wrong verifier also uses the code up.
 */
function provider(clients: ClientDirectory, deps: Deps): OAuthServerProvider {
  const unused = () => Promise.reject(new ServerError('not served by this provider'));
  return {
    skipLocalPkceValidation: true,
    clientsStore: {
      async getClient(clientId) {
        // An unknown or unverifiable client is the SDK's invalid_client (undefined), never a 500.
        const c = await clients.get(clientId, deps).catch((e: unknown) => {
          if (e instanceof OAuthProblem) return undefined;
          throw e;
        });
        return c && ({ client_id: c.clientId, client_name: c.clientName, redirect_uris: c.redirectUris, token_endpoint_auth_method: 'none' } as OAuthClientInformationFull);
      },
    },
    authorize: unused,
    challengeForAuthorizationCode: unused,
    verifyAccessToken: unused,
    exchangeAuthorizationCode: (client, code, verifier, redirectUri, resource) =>
      wrap(() => oauth.exchangeCode(client.client_id, { code, verifier, redirectUri, resource: resource?.href }, deps)),
    exchangeRefreshToken: (client, refreshToken, scopes) =>
      wrap(() => oauth.refresh(client.client_id, { refreshToken, scopes: scopes ? oauth.parseScopes(scopes.join(' ')) : undefined }, deps)),
    revokeToken: (client, request) => wrap(() => oauth.revokeToken(client.client_id, request.token, deps)),
  };
}

/**
 * Token (RFC 6749), revocation (RFC 7009) and registration (RFC 7591) endpoints, each limited per client address by
 * our limiter (`limit`; Redis-shared), so the SDK's in-memory express-rate-limit is switched off.
 */
export function tokenRoutes(app: Express, clients: ClientDirectory, deps: Deps, limit: RequestHandler): void {
  const p = provider(clients, deps);
  // Housekeeping rides on the token endpoint, at most once per PRUNE_EVERY_MS per process, never in the way.
  let nextPrune = 0;
  const prune: RequestHandler = (req, _res, next) => {
    if (deps.now() >= nextPrune) {
      nextPrune = deps.now() + PRUNE_EVERY_MS;
      oauth.pruneGrants(deps).catch((err: Error) => req.log?.warn({ err: err.message }, 'pruning OAuth codes and tokens failed'));
    }
    next();
  };
  app.use('/oauth/token', openCors, limit, prune, tokenHandler({ provider: p, rateLimit: false }));
  app.use('/oauth/revoke', openCors, limit, revocationHandler({ provider: p, rateLimit: false }));
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
