import { createHmac, randomBytes } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { invalid } from '../shared/index.js';

const DAY = 86_400_000;

/** Header names of a delivery. */
export const WEBHOOK_HEADERS = {
  delivery: 'x-tracker-delivery',
  event: 'x-tracker-event',
  signature: 'x-tracker-signature',
} as const;

/** Timing of deliveries; every figure can be changed by configuration (tests run them in milliseconds). */
export interface WebhookPolicy {
  /** One attempt's time limit. */
  timeoutMs: number;
  /** First wait before a retry; it doubles with each failed attempt... */
  retryBaseMs: number;
  /** ...up to this wait. */
  retryMaxDelayMs: number;
  /** A delivery is retried until this long after it was made, then it fails. */
  retryForMs: number;
  /** A subscription whose attempts have all failed for this long is switched off. */
  disableAfterMs: number;
  /** After a rotation the previous secret still signs for this long. */
  secretOverlapMs: number;
}

/** 10 s per attempt; retries from 30 s doubling up to 4 h apart for 3 days (about 25 attempts); off after 3 days. */
export const DEFAULT_WEBHOOK_POLICY: WebhookPolicy = {
  timeoutMs: 10_000,
  retryBaseMs: 30_000,
  retryMaxDelayMs: 4 * 3_600_000,
  retryForMs: 3 * DAY,
  disableAfterMs: 3 * DAY,
  secretOverlapMs: DAY,
};

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const newWebhookSecret = (): string => WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64url');

/** Hex HMAC-SHA256 of `t.body` with the secret (its UTF-8 bytes are the key), as in Stripe's scheme. */
export function signPayload(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

/** `t=<unix seconds>,v1=<hex>` with one v1 per secret (two while a rotated secret still signs). */
export function signatureHeader(timestamp: number, body: string, secrets: readonly string[]): string {
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${signPayload(s, timestamp, body)}`)].join(',');
}

/** The secrets that sign now: the current one, and the previous one until its overlap ends. */
export function signingSecrets(w: { secret: string; previousSecret: string | null; previousSecretExpiresAt: number | null }, now: number): string[] {
  const out = [w.secret];
  if (w.previousSecret && w.previousSecretExpiresAt !== null && now < w.previousSecretExpiresAt) out.push(w.previousSecret);
  return out;
}

/** Wait before the retry that follows failed attempt number `attempt` (1 = the first). */
export function retryDelay(attempt: number, p: Pick<WebhookPolicy, 'retryBaseMs' | 'retryMaxDelayMs'>): number {
  return Math.min(p.retryBaseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 40), p.retryMaxDelayMs);
}

/** After a failed attempt: how long to wait for the next, or null when the delivery's retry window is over. */
export function nextRetry(attempts: number, createdAt: number, now: number, p: WebhookPolicy): number | null {
  const delay = retryDelay(attempts, p);
  return now + delay <= createdAt + p.retryForMs ? delay : null;
}

/** True when a subscription failing since `failingSince` has failed long enough to be switched off. */
export const failedTooLong = (failingSince: number | null, now: number, p: Pick<WebhookPolicy, 'disableAfterMs'>): boolean =>
  failingSince !== null && now - failingSince >= p.disableAfterMs;

export type AddressKind = 'public' | 'loopback' | 'private' | 'link_local' | 'metadata' | 'unspecified' | 'reserved' | 'invalid';

/** Cloud metadata endpoints; refused even when private addresses are allowed. */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254']);

/** What kind of address this is: only `public` ones may receive webhooks by default. */
export function classifyAddress(value: string): AddressKind {
  const raw = value.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(raw)) return 'invalid';
  let addr = ipaddr.parse(raw);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  if (METADATA.has(addr.toNormalizedString()) || METADATA.has(addr.toString())) return 'metadata';
  const range = addr.range();
  switch (range) {
    case 'unicast':
      return 'public';
    case 'loopback':
      return 'loopback';
    case 'private':
    case 'uniqueLocal':
    case 'carrierGradeNat':
      return 'private';
    case 'linkLocal':
      return 'link_local';
    case 'unspecified':
      return 'unspecified';
    default:
      // multicast, broadcast, documentation, 6to4, teredo and the other special ranges
      return 'reserved';
  }
}

/** Whether a delivery may go to this address; private networks only with WEBHOOK_ALLOW_PRIVATE, metadata never. */
export function addressAllowed(value: string, allowPrivate: boolean): { ok: boolean; kind: AddressKind } {
  const kind = classifyAddress(value);
  if (kind === 'public') return { ok: true, kind };
  return { ok: allowPrivate && (kind === 'loopback' || kind === 'private' || kind === 'link_local'), kind };
}

/** A subscription URL taken apart: host without brackets, and whether the host is an IP literal. */
export interface WebhookTarget {
  url: string;
  host: string;
  literal: boolean;
}

/** Checks the form of a subscription URL (http or https, a host, no credentials); the field is `url`. */
export function parseWebhookUrl(value: string): WebhookTarget {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw invalid('url', 'must be an absolute http(s) URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw invalid('url', 'must use http or https');
  if (u.username || u.password) throw invalid('url', 'must not carry a user name or password');
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (!host) throw invalid('url', 'must name a host');
  return { url: u.toString(), host, literal: ipaddr.isValid(host) };
}

/** Why the resolved addresses of a host are refused, or null when every one is allowed. */
export function refusedAddress(host: string, addresses: readonly string[], allowPrivate: boolean): string | null {
  if (!addresses.length) return `host ${host} does not resolve`;
  for (const a of addresses) {
    const { ok, kind } = addressAllowed(a, allowPrivate);
    if (!ok) {
      const hint = kind === 'metadata' || kind === 'reserved' || kind === 'unspecified' || kind === 'invalid' ? '' : ' (WEBHOOK_ALLOW_PRIVATE=true allows private networks)';
      const name = kind.replace('_', '-');
      return `${host} resolves to ${a}, ${/^[aeiu]/.test(name) ? 'an' : 'a'} ${name} address; webhooks go to public addresses only${hint}`;
    }
  }
  return null;
}

/** Whether a subscription takes an event: the type is one of its events, and the project one of its projects. */
export function subscriptionTakes(w: { events: readonly string[]; projectIds: readonly string[] | null }, type: string, projectId: string | null): boolean {
  if (!w.events.includes(type)) return false;
  return w.projectIds === null || (projectId !== null && w.projectIds.includes(projectId));
}

/** Fields of a task a task.updated event reports, each with how to compare it. */
const TASK_FIELDS = [
  'title', 'type', 'priority', 'assigneeId', 'assigneeIds', 'labels', 'dueDate', 'parentId', 'timeEstimateSeconds',
  'description', 'descriptionText', 'checklist',
] as const;
export type TaskEventField = (typeof TASK_FIELDS)[number];

/** The fields that differ between two shapes of a task, and their previous values. */
export function taskChanges(before: Record<string, unknown>, after: Record<string, unknown>): { changes: TaskEventField[]; previous: Record<string, unknown> } {
  const changes: TaskEventField[] = [];
  const previous: Record<string, unknown> = {};
  for (const f of TASK_FIELDS) {
    if (JSON.stringify(before[f]) !== JSON.stringify(after[f])) {
      changes.push(f);
      previous[f] = before[f];
    }
  }
  return { changes, previous };
}
