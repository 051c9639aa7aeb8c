import type { Response } from 'express';
import type { Scope } from '@tt/domain';

/** Every character that could end a text or an attribute, as an entity. */
export const escapeHtml = (v: string): string =>
  v.replace(/[&<>"'`=]/g, (c) => `&#${c.charCodeAt(0)};`);

const SCOPE_WORDS: Record<Scope, string> = {
  'tasks:read': 'read tasks, comments and projects you can see',
  'tasks:write': 'create and change tasks and comments as you',
  'projects:write': 'change projects and boards',
  'time:read': 'read time logs and reports',
  'time:write': 'log time as you',
  'docs:read': 'read documentation pages',
  'docs:write': 'create and change documentation pages as you',
  'meetings:read': 'read meetings and transcripts',
};

const CSS = `body{font:16px/1.5 system-ui,sans-serif;background:#f5f6f8;color:#1d2330;margin:0}
main{max-width:28rem;margin:3rem auto;background:#fff;border-radius:8px;padding:1.5rem 2rem;box-shadow:0 1px 4px #0002}
h1{font-size:1.25rem;margin:0 0 1rem}ul{padding-left:1.2rem}.err{background:#fde8e8;color:#8a1c1c;padding:.5rem .75rem;border-radius:4px}
label{display:block;margin:1rem 0 .25rem;font-weight:600}input{width:100%;box-sizing:border-box;padding:.5rem;font:inherit}
.row{display:flex;gap:.75rem;margin-top:1.25rem}button{flex:1;padding:.6rem;font:inherit;border-radius:4px;border:1px solid #888;cursor:pointer}
button[value=approve]{background:#1f5fd1;color:#fff;border-color:#1f5fd1}small{color:#555}`;

/**
 * Headers of every page of the authorization endpoint: never framed (clickjacking), never cached, no script at all,
 * and the form may post only here and redirect only to the client (`form-action` also covers the redirect).
 */
export function pageHeaders(res: Response, redirectOrigin?: string): void {
  const formAction = redirectOrigin ? `'self' ${redirectOrigin}` : `'self'`;
  res.setHeader('content-security-policy', `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`);
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('pragma', 'no-cache');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-content-type-options', 'nosniff');
}

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
  `<title>${escapeHtml(title)}</title><style>${CSS}</style></head><body><main>${body}</main></body></html>`;

/** A page that says why the sign-in cannot go on (no redirect: the client or its redirect URI is not trusted). */
export function errorPage(res: Response, status: number, message: string): void {
  pageHeaders(res);
  res.status(status).type('html').send(page('Sign-in failed', `<h1>Sign-in failed</h1><p class="err">${escapeHtml(message)}</p>`));
}

export interface ConsentView {
  clientName: string;
  redirectHost: string;
  scopes: Scope[];
  /** Hidden fields: the authorization parameters and the CSRF token. */
  fields: Record<string, string>;
  error?: string | undefined;
}

/** The consent form: who asks, where it goes back to, what it may do, and the API key to sign in with. */
export function consentPage(v: ConsentView): string {
  const scopes = v.scopes.length
    ? v.scopes.map((s) => `<li>${escapeHtml(SCOPE_WORDS[s])} <small>(${escapeHtml(s)})</small></li>`).join('')
    : '<li>every right your API key has</li>';
  const hidden = Object.entries(v.fields).map(([k, val]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(val)}">`).join('');
  return page('Sign in to the task tracker', [
    `<h1>Connect ${escapeHtml(v.clientName)} to the task tracker</h1>`,
    v.error ? `<p class="err" role="alert">${escapeHtml(v.error)}</p>` : '',
    `<p><strong>${escapeHtml(v.clientName)}</strong> will act as you, returning to <strong>${escapeHtml(v.redirectHost)}</strong>. It asks to:</p>`,
    `<ul>${scopes}</ul><p><small>It never gets more than your API key allows; an operator can revoke it at any time.</small></p>`,
    `<form method="post" action="/oauth/authorize">${hidden}`,
    `<label for="api_key">Your API key</label><input id="api_key" name="api_key" type="password" autocomplete="off" required>`,
    `<div class="row"><button type="submit" name="decision" value="approve">Allow</button>`,
    `<button type="submit" name="decision" value="deny" formnovalidate>Deny</button></div></form>`,
  ].join(''));
}
