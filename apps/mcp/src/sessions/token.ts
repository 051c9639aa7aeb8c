import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Deps } from '@tt/domain';

/** How long a 2025-era session lives after initialize: then 404, and the client opens a new one. */
export const SESSION_TTL_MS = 7 * 24 * 3600_000;

/** What a session id says: the key that opened it, until when, and what the client said it can answer. */
export interface SessionClaims {
  /** The Mcp-Session-Id itself. */
  id: string;
  keyId: string;
  expiresAt: number;
  /** The client declared sampling, elicitation (form), roots at initialize. */
  can: { sampling: boolean; elicitation: boolean; roots: boolean };
}

interface Payload {
  k: string;
  e: number;
  /** Capability letters: s(ampling), e(licitation), r(oots). */
  c: string;
  n: string;
}

const has = (caps: unknown, name: string): boolean =>
  caps !== null && typeof caps === 'object' && (caps as Record<string, unknown>)[name] !== undefined && (caps as Record<string, unknown>)[name] !== null;

/**
 * Session ids as signed tokens (HMAC-SHA256 over the payload, with a secret every replica shares through the store,
 * made on first use): any replica checks one alone, with no lookup. A token names the key that opened it, so another
 * key's session id is refused like a forged one.
 */
export function sessionTokens(deps: Pick<Deps, 'store' | 'now'>) {
  let secret: Promise<Buffer> | undefined;
  const key = () => (secret ??= deps.store.oauth.secret('mcp-session', randomBytes(32).toString('base64url')).then(
    (s) => Buffer.from(s, 'base64url'),
    (e: unknown) => {
      secret = undefined;
      throw e;
    },
  ));
  const sign = async (body: string) => createHmac('sha256', await key()).update(body).digest('base64url');

  return {
    /** A new session id for `keyId`, with the client's declared capabilities (initialize's `capabilities`). */
    async issue(keyId: string, clientCapabilities: unknown): Promise<SessionClaims> {
      const can = { sampling: has(clientCapabilities, 'sampling'), elicitation: has(clientCapabilities, 'elicitation'), roots: has(clientCapabilities, 'roots') };
      const payload: Payload = {
        k: keyId, e: deps.now() + SESSION_TTL_MS, c: `${can.sampling ? 's' : ''}${can.elicitation ? 'e' : ''}${can.roots ? 'r' : ''}`, n: randomBytes(9).toString('base64url'),
      };
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
      const id = `${body}.${await sign(body)}`;
      return { id, keyId, expiresAt: payload.e, can };
    },
    /** The claims of `id` if it is ours, unexpired and opened by `keyId`; undefined otherwise (forged, another key's). */
    async verify(id: string, keyId: string): Promise<SessionClaims | undefined> {
      const [body, tag, extra] = id.split('.');
      if (!body || !tag || extra !== undefined || id.length > 512) return undefined;
      const want = Buffer.from(await sign(body));
      const got = Buffer.from(tag);
      if (want.length !== got.length || !timingSafeEqual(want, got)) return undefined;
      let p: Payload;
      try {
        p = JSON.parse(Buffer.from(body, 'base64url').toString()) as Payload;
      } catch {
        return undefined;
      }
      if (p.k !== keyId || typeof p.e !== 'number' || p.e <= deps.now()) return undefined;
      return { id, keyId, expiresAt: p.e, can: { sampling: p.c.includes('s'), elicitation: p.c.includes('e'), roots: p.c.includes('r') } };
    },
  };
}
