import type { WebhookEvent } from './types.js';

/** Header names of a webhook delivery. */
export const WEBHOOK_HEADERS = {
  /** Delivery id: the same in every retry of one delivery; a redelivery has its own. */
  delivery: 'x-tracker-delivery',
  /** Event type, e.g. `task.updated`. */
  event: 'x-tracker-event',
  /** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, two v1 while a rotated secret still signs. */
  signature: 'x-tracker-signature',
} as const;

export interface VerifyWebhookOptions {
  /** The request body exactly as received (bytes or text), before any JSON parsing. */
  payload: string | Uint8Array;
  /** The `x-tracker-signature` header. */
  signature: string | null | undefined;
  /** The subscription's secret (`whsec_...`); during a rotation, both the old and the new secret may be given. */
  secret: string | readonly string[];
  /** Largest accepted distance between the signature's time and now, in seconds (clock skew and replay); default 300. */
  toleranceSeconds?: number;
  /** Now, in milliseconds (tests); default Date.now(). */
  now?: number;
}

/** A delivery whose signature does not check out: answer it with 400 and do not act on it. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

const encoder = new TextEncoder();

async function hmacHex(secret: string, message: Uint8Array<ArrayBuffer>): Promise<string> {
  const key = await globalThis.crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', key, message));
  return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Compares without stopping at the first difference, so timing does not tell how much of a forgery was right. */
function sameHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/**
 * Checks a webhook delivery's signature and returns the parsed event; throws WebhookVerificationError when the header
 * is missing or malformed, the time is outside the tolerance, or no v1 signature matches any given secret. Uses Web
 * Crypto, so it runs in Node 20+, browsers, Deno and edge runtimes.
 *
 * ```ts
 * const event = await verifyWebhook({ payload: rawBody, signature: req.headers['x-tracker-signature'], secret: process.env.TT_WEBHOOK_SECRET! });
 * ```
 */
export async function verifyWebhook(o: VerifyWebhookOptions): Promise<WebhookEvent> {
  if (!o.signature) throw new WebhookVerificationError(`missing ${WEBHOOK_HEADERS.signature} header`);
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of o.signature.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (timestamp === undefined) throw new WebhookVerificationError('the signature header has no timestamp (t=)');
  if (!signatures.length) throw new WebhookVerificationError('the signature header has no v1 signature');
  const tolerance = o.toleranceSeconds ?? 300;
  const now = Math.floor((o.now ?? Date.now()) / 1000);
  if (Math.abs(now - timestamp) > tolerance) {
    throw new WebhookVerificationError(`the signature's time is ${now - timestamp} s away from now (tolerance ${tolerance} s)`);
  }
  const body = typeof o.payload === 'string' ? encoder.encode(o.payload) : o.payload;
  const signed = concat(encoder.encode(`${timestamp}.`), body);
  const secrets = typeof o.secret === 'string' ? [o.secret] : [...o.secret];
  let ok = false;
  for (const secret of secrets) {
    const expected = await hmacHex(secret, signed);
    for (const s of signatures) if (sameHex(expected, s)) ok = true;
  }
  if (!ok) throw new WebhookVerificationError('no signature matches the secret');
  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('the payload is not JSON');
  }
}
