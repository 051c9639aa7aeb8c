import { createHash, randomBytes } from 'node:crypto';

/** A browser's and a client's side of the sign-in, over fetch, for the integration tests. */
export const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

export const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** The hidden fields of the consent form, by name. */
export function hiddenFields(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    out[m[1]!] = m[2]!.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));
  }
  return out;
}

export async function register(base: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

export interface AuthorizeRequest {
  clientId: string;
  redirectUri: string;
  challenge: string;
  state?: string;
  scope?: string;
  resource?: string;
}

export const authorizeUrl = (base: string, a: AuthorizeRequest): string =>
  `${base}/oauth/authorize?${new URLSearchParams({
    response_type: 'code', client_id: a.clientId, redirect_uri: a.redirectUri, code_challenge: a.challenge, code_challenge_method: 'S256',
    state: a.state ?? 'st-1', ...(a.scope ? { scope: a.scope } : {}), ...(a.resource ? { resource: a.resource } : {}),
  }).toString()}`;

/** Opens the consent page and submits it with the key and decision; returns the answer (not followed). */
export async function consent(base: string, a: AuthorizeRequest, apiKey: string, decision = 'approve', tamper?: (f: Record<string, string>) => void): Promise<Response> {
  const page = await fetch(authorizeUrl(base, a));
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}: ${await page.text()}`);
  const fields = { ...hiddenFields(await page.text()), api_key: apiKey, decision };
  tamper?.(fields);
  return fetch(`${base}/oauth/authorize`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form(fields) });
}

export async function token(base: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form(fields) });
}

/** The whole sign-in: consent with the key, then the code exchanged with the verifier. */
export async function signIn(base: string, clientId: string, redirectUri: string, apiKey: string, scope?: string) {
  const { verifier, challenge } = pkce();
  const answer = await consent(base, { clientId, redirectUri, challenge, scope, resource: `${base}/mcp` }, apiKey);
  const code = new URL(answer.headers.get('location')!).searchParams.get('code')!;
  const res = await token(base, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: redirectUri, resource: `${base}/mcp` });
  return (await res.json()) as { access_token: string; refresh_token: string; scope: string; expires_in: number };
}

export function rpc(base: string, tokenValue: string | undefined, body: unknown, path = '/mcp'): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(tokenValue ? { authorization: `Bearer ${tokenValue}` } : {}) },
    body: JSON.stringify(body),
  });
}

/** A business workspace with alice (admin), a full key, a read-only key and a project with a task. */
export async function seedWorkspace(deps: import('@tt/domain').Deps) {
  const { keys, people, projects, tasks, SCOPES } = await import('@tt/domain');
  const ws = await people.createWorkspace({ name: 'Acme', plan: 'business', timezone: 'Europe/Moscow' }, deps);
  const alice = await people.createUser(ws.id, { name: 'Alice', login: 'alice', role: '', isAdmin: true }, deps);
  const full = await keys.issueKey(alice.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps);
  const readOnly = await keys.issueKey(alice.id, { scopes: ['tasks:read'], projectIds: null, expiresAt: null, allowedIps: [] }, deps);
  const actor = {
    workspace: { id: ws.id, name: ws.name, plan: ws.plan, timezone: ws.timezone, memberKeysEnabled: true },
    user: { ...alice, workspaceId: ws.id, deletedAt: null },
    key: { id: full.id, scopes: full.scopes, projectIds: null },
  };
  const project = await projects.createProject(actor, { name: 'Website', key: 'WEB', description: '', template: 'scrum' }, deps);
  const task = await tasks.createTask(actor, { title: 'Fix the login page', projectId: project.id }, deps);
  return { ws, alice, full, readOnly, task };
}
