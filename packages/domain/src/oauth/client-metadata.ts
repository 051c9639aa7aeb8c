import { z } from '../shared/index.js';
import { OAuthProblem, redirectUriProblem } from './rules.js';

/** A client as the sign-in sees it: registered (DCR) or described by its client-id metadata document (CIMD). */
export interface OAuthClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  /** True for a CIMD client (its id is the URL of its document). */
  document: boolean;
}

/** The client metadata we keep (RFC 7591); other fields are accepted and ignored. */
const ClientMetadata = z.object({
  redirect_uris: z.array(z.string().max(2000)).min(1, 'must list at least one redirect URI').max(20),
  client_name: z.string().max(200).optional(),
  client_uri: z.string().max(2000).optional(),
  logo_uri: z.string().max(2000).optional(),
  scope: z.string().max(1000).optional(),
  grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])).optional(),
  response_types: z.array(z.literal('code')).optional(),
  token_endpoint_auth_method: z.string().max(100).optional(),
  software_id: z.string().max(200).optional(),
  software_version: z.string().max(200).optional(),
});
export type ClientMetadata = z.infer<typeof ClientMetadata>;

const issueText = (issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>) =>
  issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ');

/**
 * Client metadata of a registration or a metadata document: the redirect URIs first (`invalid_redirect_uri`), then the
 * other fields (`invalid_client_metadata`, naming each faulty field). `redirectCode` lets a CIMD say which problem it
 * reports as (a document is refused as a whole: `invalid_client_metadata`).
 */
export function parseClientMetadata(body: unknown, redirectCode: 'invalid_redirect_uri' | 'invalid_client_metadata' = 'invalid_redirect_uri'): ClientMetadata {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new OAuthProblem('invalid_client_metadata', 'the body must be a JSON object');
  const uris = (body as { redirect_uris?: unknown }).redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.some((u) => typeof u !== 'string')) {
    throw new OAuthProblem(redirectCode, 'redirect_uris: must be a non-empty list of URLs');
  }
  for (const uri of uris as string[]) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthProblem(redirectCode, `redirect_uris: ${problem}`);
  }
  const parsed = ClientMetadata.safeParse(body);
  if (!parsed.success) throw new OAuthProblem('invalid_client_metadata', issueText(parsed.error.issues));
  if (parsed.data.grant_types && !parsed.data.grant_types.includes('authorization_code')) {
    throw new OAuthProblem('invalid_client_metadata', 'grant_types: must include authorization_code');
  }
  if (parsed.data.token_endpoint_auth_method && !['none', 'client_secret_post', 'client_secret_basic'].includes(parsed.data.token_endpoint_auth_method)) {
    throw new OAuthProblem('invalid_client_metadata', 'token_endpoint_auth_method: must be none (public clients with PKCE)');
  }
  return parsed.data;
}

/**
 * Why a string cannot be a client-id metadata document URL, or null when it can: https, a path, no fragment, no user
 * info, no dot segments (draft-ietf-oauth-client-id-metadata-document).
 */
export function clientIdUrlProblem(clientId: string): string | null {
  let u: URL;
  try {
    u = new URL(clientId);
  } catch {
    return 'client_id is not a URL';
  }
  if (u.protocol !== 'https:') return 'a client_id URL must use https';
  if (u.hash || clientId.includes('#')) return 'a client_id URL must not have a fragment';
  if (u.username || u.password) return 'a client_id URL must not carry a user name or password';
  if (u.pathname === '/' || /(^|\/)\.\.?(\/|$)/.test(clientId.slice(u.origin.length))) return 'a client_id URL must have a path without . or .. segments';
  return null;
}

/** True when the client id is a URL (a CIMD client) rather than an id we issued. */
export const isClientIdUrl = (clientId: string): boolean => /^https?:\/\//i.test(clientId);

/** A fetched client-id metadata document checked against its URL: JSON, `client_id` equal to the URL, good metadata. */
export function clientFromDocument(url: string, body: string): OAuthClient {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    throw new OAuthProblem('invalid_client_metadata', 'the client metadata document is not JSON');
  }
  if (doc === null || typeof doc !== 'object' || (doc as { client_id?: unknown }).client_id !== url) {
    throw new OAuthProblem('invalid_client_metadata', 'the client metadata document\'s client_id must equal its URL');
  }
  const meta = parseClientMetadata(doc, 'invalid_client_metadata');
  if (meta.token_endpoint_auth_method && meta.token_endpoint_auth_method !== 'none') {
    throw new OAuthProblem('invalid_client_metadata', 'token_endpoint_auth_method: a metadata document client must be public (none)');
  }
  return { clientId: url, clientName: meta.client_name ?? new URL(url).host, redirectUris: meta.redirect_uris, document: true };
}
