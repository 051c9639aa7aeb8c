import express, { type Express, type Request, type Response } from 'express';
import { type ClientDirectory, type Deps, DomainError, oauth, type OAuthClient, OAuthProblem, type SignedForm } from '@tt/domain';
import { consentPage, errorPage, pageHeaders } from './consent-page.js';
import { baseUrl, MCP_PATHS, type OAuthSettings } from './settings.js';

/**
 * The authorization endpoint, which is the consent page: GET shows it, POST submits it. The SDK's
 * authorizationHandler is not used: it answers an unknown client or redirect URI with JSON (we show a page), hands the
 * page to a provider anyway, and limits with an in-memory counter per process.
 */
type Params = Record<string, unknown>;
const str = (p: Params, k: string): string => (typeof p[k] === 'string' ? (p[k] as string) : '');

/** Redirects to the client with the parameters (and the issuer, RFC 9207). */
function back(res: Response, redirectUri: string, params: Record<string, string>): void {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v) u.searchParams.set(k, v);
  res.setHeader('cache-control', 'no-store');
  res.redirect(302, u.href);
}

interface Checked {
  client: OAuthClient;
  redirectUri: string;
  form: SignedForm;
}

/** The client and redirect URI (failures are a page), then the rest of the request (failures go back to the client). */
async function check(req: Request, res: Response, p: Params, clients: ClientDirectory, deps: Deps, s: OAuthSettings): Promise<Checked | undefined> {
  const clientId = str(p, 'client_id');
  if (!clientId) return void errorPage(res, 400, 'The request names no client (client_id is missing).');
  let client: OAuthClient | undefined;
  try {
    client = await clients.get(clientId, deps);
  } catch (e) {
    if (e instanceof OAuthProblem) return void errorPage(res, 400, `The client could not be verified: ${e.message}.`);
    throw e;
  }
  if (!client) return void errorPage(res, 400, 'Unknown client: it is not registered here. Connect the app again.');
  const given = str(p, 'redirect_uri');
  const redirectUri = given || (client.redirectUris.length === 1 ? client.redirectUris[0]! : '');
  if (!redirectUri || !client.redirectUris.includes(redirectUri)) {
    return void errorPage(res, 400, 'The redirect URI is not registered for this client, so the sign-in cannot return to it.');
  }
  const state = str(p, 'state');
  const fail = (error: string, description: string) => void back(res, redirectUri, { error, error_description: description, state, iss: baseUrl(req, s) });
  if (str(p, 'response_type') !== 'code') return fail('unsupported_response_type', 'response_type must be code');
  if (str(p, 'code_challenge_method') !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256 (PKCE is required)');
  if (!oauth.validChallenge(str(p, 'code_challenge'))) return fail('invalid_request', 'code_challenge must be the base64url S256 hash of the verifier');
  const resource = str(p, 'resource');
  const base = baseUrl(req, s);
  if (resource && !MCP_PATHS.some((path) => oauth.sameResource(resource, `${base}${path}`))) {
    return fail('invalid_target', `resource must be this MCP endpoint, ${base}/mcp`);
  }
  const readOnly = resource !== '' && oauth.sameResource(resource, `${base}/mcp/readonly`);
  const scope = oauth.scopesAsked(str(p, 'scope'), readOnly).join(' ');
  return {
    client, redirectUri,
    form: { clientId, redirectUri, codeChallenge: str(p, 'code_challenge'), scope, state, resource },
  };
}

function render(res: Response, c: Checked, token: string, status = 200, error?: string): void {
  pageHeaders(res, new URL(c.redirectUri).origin);
  const f = c.form;
  const fields = {
    client_id: f.clientId, redirect_uri: f.redirectUri, response_type: 'code', code_challenge: f.codeChallenge,
    code_challenge_method: 'S256', scope: f.scope, state: f.state, resource: f.resource, csrf_token: token,
  };
  res.status(status).type('html').send(consentPage({
    clientName: c.client.clientName, redirectHost: new URL(c.redirectUri).host, scopes: oauth.parseScopes(f.scope), fields, error,
  }));
}

export function authorizeRoutes(app: Express, clients: ClientDirectory, deps: Deps, s: OAuthSettings): void {
  // The form secret never changes once made: read from the store once per process, not on every page.
  let madeSecret: string | undefined;
  const formSecret = async () => (madeSecret ??= await oauth.formSecret(deps));
  app.get('/oauth/authorize', async (req, res, next) => {
    try {
      const c = await check(req, res, req.query as Params, clients, deps, s);
      if (c) render(res, c, oauth.signForm(await formSecret(), c.form, deps.now()));
    } catch (e) {
      next(e);
    }
  });
  app.post('/oauth/authorize', express.urlencoded({ extended: false, limit: '16kb' }), async (req, res, next) => {
    try {
      const p = (req.body ?? {}) as Params;
      const c = await check(req, res, p, clients, deps, s);
      if (!c) return;
      const secret = await formSecret();
      const problem = oauth.formProblem(secret, c.form, str(p, 'csrf_token'), deps.now());
      if (problem) return errorPage(res, 400, `The form was refused: ${problem}.`);
      const iss = baseUrl(req, s);
      if (str(p, 'decision') === 'deny') return back(res, c.redirectUri, { error: 'access_denied', error_description: 'the person denied access', state: c.form.state, iss });
      if (str(p, 'decision') !== 'approve') return render(res, c, oauth.signForm(secret, c.form, deps.now()), 400, 'Choose Allow or Deny.');
      const apiKey = str(p, 'api_key');
      if (!apiKey.trim()) return render(res, c, oauth.signForm(secret, c.form, deps.now()), 400, 'Enter your API key.');
      try {
        const resource = c.form.resource || null;
        const { code } = await oauth.approve({ client: c.client, redirectUri: c.redirectUri, codeChallenge: c.form.codeChallenge, scopes: oauth.parseScopes(c.form.scope), resource }, apiKey, req.ip, deps);
        back(res, c.redirectUri, { code, state: c.form.state, iss });
      } catch (e) {
        // The key is refused as on any request (wrong, expired, revoked, address, plan, member keys): say why, issue nothing.
        if (!(e instanceof DomainError)) throw e;
        render(res, c, oauth.signForm(secret, c.form, deps.now()), e.status, `The API key was refused: ${e.message}.`);
      }
    } catch (e) {
      next(e);
    }
  });
}
