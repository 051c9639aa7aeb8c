import { ConnectionError, isApiError, TimeoutError } from './errors.js';
import type { RequestSpec } from './operations.js';

/** A fresh Idempotency-Key: a random UUID (Node 20+, browsers), or 128 random bits in hex where randomUUID is missing. */
export function newIdempotencyKey(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  return Array.from(c.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The key a request goes out with: the caller's (option or header), else a new one for a `/v1` POST when the client
 * may retry (so every attempt of that call carries the same key), else none.
 */
export function idempotencyKeyFor(
  spec: RequestSpec,
  explicit: string | undefined,
  headers: Array<Record<string, string> | undefined>,
  auto: boolean,
): string | undefined {
  if (explicit !== undefined) return explicit;
  for (const h of headers) {
    for (const [name, value] of Object.entries(h ?? {})) if (name.toLowerCase() === 'idempotency-key') return value;
  }
  return auto && spec.method === 'POST' && spec.path.startsWith('/v1/') ? newIdempotencyKey() : undefined;
}

/**
 * Whether a keyed POST may be sent again after this failure: the server may or may not have done it (connection lost,
 * timeout), it failed and kept nothing (5xx), or the first attempt is still running (409 idempotency_conflict). The key
 * makes the resend a replay if the first attempt did get through.
 */
export function resendable(error: unknown): boolean {
  if (error instanceof ConnectionError || error instanceof TimeoutError) return true;
  return isApiError(error) && (error.status >= 500 || error.code === 'idempotency_conflict');
}

/** Pause before resending: `retry-after` when given, else 0.5 s, 1 s, 2 s ... */
export function resendDelayMs(error: unknown, attempt: number): number {
  if (isApiError(error) && error.retryAfter !== null) return error.retryAfter * 1000;
  return 500 * 2 ** attempt;
}
