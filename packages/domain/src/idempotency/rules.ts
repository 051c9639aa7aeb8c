import { createHash } from 'node:crypto';
import { assertShallow, invalid } from '../shared/index.js';

/*
 * Safe retries (IETF draft "The Idempotency-Key HTTP Header Field", Stripe's practice): the port the store
 * implements, and the pure rules for keys and request fingerprints. The use case is services/idempotency.ts.
 */

/** Whose key it is: the API key, and the surface (REST header or MCP requestId), so the two never mix. */
export interface IdempotencyScope {
  keyId: string;
  surface: 'rest' | 'mcp';
}

/** A stored answer: status, the headers worth replaying (content type, location, ETag) and the body text. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface IdempotencyRecord {
  /** Hash of what the first request asked for (method, path and body, or tool and arguments). */
  fingerprint: string;
  /** Holder of the claim: completing or releasing needs it, so a request whose claim was taken over cannot overwrite. */
  token: string;
  createdAt: number;
  /** While the first request runs: when its claim counts as abandoned (the process died). Null once answered. */
  lockedUntil: number | null;
  /** The first answer; null while it runs. */
  response: StoredResponse | null;
}

/** Idempotency keys in the database, shared by every process. */
export interface IdempotencyRepo {
  /** Inserts a running claim unless the key exists (INSERT ... ON CONFLICT DO NOTHING); true when this call inserted it. */
  claim(scope: IdempotencyScope, key: string, claim: Omit<IdempotencyRecord, 'response'>): Promise<boolean>;
  get(scope: IdempotencyScope, key: string): Promise<IdempotencyRecord | undefined>;
  /** Replaces an expired or abandoned row with a new claim, only if it still holds `token`; true when it did. */
  takeOver(scope: IdempotencyScope, key: string, token: string, claim: Omit<IdempotencyRecord, 'response'>): Promise<boolean>;
  /** Stores the answer of the claim holding `token`; false when the claim is no longer that one. */
  complete(scope: IdempotencyScope, key: string, token: string, response: StoredResponse): Promise<boolean>;
  /** Deletes the claim holding `token`, so the key can be used again. */
  release(scope: IdempotencyScope, key: string, token: string): Promise<boolean>;
  /** Deletes rows created before `before`; returns how many. */
  prune(before: number): Promise<number>;
}

/** Stripe's limit. */
export const IDEMPOTENCY_KEY_MAX = 255;
const PRINTABLE = /^[\x20-\x7e]+$/;

/**
 * The key of an `Idempotency-Key` header (or an MCP requestId): 1 to 255 printable ASCII characters. The draft
 * defines the header as a Structured Field string ("..."); the bare form Stripe's clients send is accepted too.
 */
export function parseIdempotencyKey(raw: string, field = 'Idempotency-Key'): string {
  let key = raw.trim();
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1).replace(/\\(["\\])/g, '$1');
  if (!key) throw invalid(field, 'must not be empty; send a unique value such as a UUID');
  if (key.length > IDEMPOTENCY_KEY_MAX) throw invalid(field, `at most ${IDEMPOTENCY_KEY_MAX} characters`);
  if (!PRINTABLE.test(key)) throw invalid(field, 'only printable ASCII characters are allowed');
  return key;
}

/**
 * JSON with object keys sorted at every level, so two bodies that differ only in key order are the same request. It
 * recurses, so a value nested deeper than MAX_JSON_DEPTH is refused first.
 */
export function canonicalJson(value: unknown): string {
  assertShallow(value, 'request');
  return canonical(value);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v === undefined ? null : v)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** SHA-256 of the canonical parts of a request: a retry must match it to be replayed. Each part is checked for depth. */
export function requestFingerprint(parts: unknown[]): string {
  for (const part of parts) assertShallow(part, 'request');
  return createHash('sha256').update(canonical(parts)).digest('hex');
}

declare module '../shared/store.js' {
  interface Repos {
  /** Idempotency keys of retried requests (REST Idempotency-Key, MCP requestId). */
    idempotency: IdempotencyRepo;
  }
}
