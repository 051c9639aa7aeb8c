import { randomUUID } from 'node:crypto';
import { type Deps, recordAudit } from '../shared/index.js';
import { addressAllowed } from '../webhooks/index.js';
import { clientFromDocument, clientIdUrlProblem, isClientIdUrl, parseClientMetadata, type OAuthClient } from './client-metadata.js';
import type { ClientDocumentPorts } from './ports.js';
import { OAUTH_LIFETIMES, OAuthProblem } from './rules.js';

/** Limits of fetching a client-id metadata document. */
export const CLIENT_DOCUMENT_LIMITS = { timeoutMs: 5_000, maxBytes: 5 * 1024, cacheEntries: 500 } as const;

/**
 * Dynamic client registration (RFC 7591). Every client is public (PKCE, no secret): a `client_secret_*` method asked
 * for is answered with `none`, which RFC 7591 lets the server choose.
 */
export async function registerClient(body: unknown, deps: Deps): Promise<Record<string, unknown>> {
  const meta = parseClientMetadata(body);
  const id = `tc_${randomUUID()}`;
  const now = deps.now();
  const metadata = { ...meta, token_endpoint_auth_method: 'none', grant_types: meta.grant_types ?? ['authorization_code', 'refresh_token'], response_types: ['code'] };
  const name = meta.client_name ?? 'Unnamed client';
  await deps.store.transaction(async (store) => {
    await store.oauth.createClient({ id, name, redirectUris: meta.redirect_uris, metadata, createdAt: now });
    await recordAudit(store, deps, 'anonymous', { workspaceId: null, action: 'oauth.client_registered', targetType: 'oauth_client', targetId: id, details: { name, redirectUris: meta.redirect_uris } });
  });
  return { client_id: id, client_id_issued_at: Math.floor(now / 1000), ...metadata };
}

export interface ClientDirectoryOptions {
  ports: ClientDocumentPorts;
  /** OAUTH_ALLOW_PRIVATE_CLIENT_IDS: documents on loopback and private addresses (tests, local development). */
  allowPrivate: boolean;
}

/** Finds clients by id: registered ones in the store, CIMD ones fetched (with the webhooks' address rules) and cached. */
export interface ClientDirectory {
  get(clientId: string, deps: Deps): Promise<OAuthClient | undefined>;
}

export function createClientDirectory(o: ClientDirectoryOptions): ClientDirectory {
  // A public document's contents, not security state: a per-process cache is fine; it expires on its own.
  const cache = new Map<string, { client: OAuthClient; until: number }>();

  async function fetchDocument(url: string): Promise<OAuthClient> {
    const problem = clientIdUrlProblem(url);
    if (problem) throw new OAuthProblem('invalid_client', problem);
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    const addresses = await o.ports.resolve(host).catch(() => [] as string[]);
    if (!addresses.length) throw new OAuthProblem('invalid_client', `the client_id host ${host} does not resolve`);
    for (const a of addresses) {
      const { ok, kind } = addressAllowed(a, o.allowPrivate);
      if (!ok) throw new OAuthProblem('invalid_client', `the client_id host ${host} resolves to a ${kind.replace('_', '-')} address; client metadata documents must be on public addresses`);
    }
    let answer: { status: number; body: string };
    try {
      answer = await o.ports.fetch(url, addresses[0]!, CLIENT_DOCUMENT_LIMITS);
    } catch (e) {
      throw new OAuthProblem('invalid_client', `the client metadata document could not be fetched: ${(e as Error).message}`);
    }
    if (answer.status !== 200) throw new OAuthProblem('invalid_client', `the client metadata document answered HTTP ${answer.status}`);
    return clientFromDocument(url, answer.body);
  }

  return {
    async get(clientId, deps) {
      if (!isClientIdUrl(clientId)) {
        const row = clientId.length <= 200 ? await deps.store.oauth.getClient(clientId) : undefined;
        return row && { clientId: row.id, clientName: row.name, redirectUris: row.redirectUris, document: false };
      }
      const now = deps.now();
      const hit = cache.get(clientId);
      if (hit && hit.until > now) return hit.client;
      const client = await fetchDocument(clientId);
      if (cache.size >= CLIENT_DOCUMENT_LIMITS.cacheEntries) cache.delete(cache.keys().next().value!);
      cache.set(clientId, { client, until: now + OAUTH_LIFETIMES.clientDocumentMs });
      return client;
    },
  };
}
