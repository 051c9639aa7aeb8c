import type { ErrorCode } from './types.js';

/** Rate-limit state reported by the last response (`x-ratelimit-*` headers). */
export interface RateLimitInfo {
  /** Requests allowed per minute for the key. */
  limit: number;
  /** Requests left in the current one-minute window. */
  remaining: number;
  /** Seconds until the current window resets. */
  resetSeconds: number;
}

/** Base class of every error the SDK throws on its own (caller aborts reject with the signal's reason instead). */
export class TaskTrackerError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TaskTrackerError';
  }
}

const API_ERROR = Symbol.for('@tt/sdk.ApiError');

/** The codes of the spec's error table, by HTTP status; used when an answer carries no error body (a proxy, say). */
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'archived',
  412: 'precondition_failed',
  422: 'rejected',
  429: 'rate_limited',
  503: 'service_unavailable',
  504: 'outcome_unknown',
};

const KNOWN_CODES = new Set<string>([
  'invalid_request', 'unauthorized', 'invalid_key', 'key_expired', 'insufficient_scope', 'forbidden', 'ip_not_allowed',
  'api_disabled', 'plan_required', 'not_found', 'archived', 'rejected', 'rate_limited', 'internal',
  'idempotency_key_reused', 'idempotency_conflict', 'precondition_failed', 'service_unavailable', 'outcome_unknown',
] satisfies ErrorCode[]);

export interface ApiErrorInit {
  status: number;
  code: ErrorCode;
  message: string;
  method: string;
  path: string;
  requestId: string | null;
  retryAfter: number | null;
  rateLimit: RateLimitInfo | null;
}

/** An error answer of the API: HTTP status plus the spec's `code` and the server's `message`. */
export class ApiError extends TaskTrackerError {
  readonly [API_ERROR] = true;
  /** HTTP status, e.g. 404. */
  readonly status: number;
  /** Error code from the spec, e.g. `not_found`, `archived`, `rate_limited`. */
  readonly code: ErrorCode;
  /** The `x-request-id` of the answer, to quote when reporting a fault. */
  readonly requestId: string | null;
  /** Seconds to wait before retrying (`retry-after`), on 429 answers. */
  readonly retryAfter: number | null;
  /** Rate-limit headers of the answer, when present. */
  readonly rateLimit: RateLimitInfo | null;
  /** HTTP method and path of the failed request (path without the query string). */
  readonly method: string;
  readonly path: string;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.name = 'ApiError';
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.rateLimit = init.rateLimit;
    this.method = init.method;
    this.path = init.path;
  }
}

/** True for an ApiError, also when it comes from another copy of the SDK (ESM and CJS side by side). */
export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError || (typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[API_ERROR] === true);
}

/** The request took longer than its timeout (per attempt). */
export class TimeoutError extends TaskTrackerError {
  constructor(readonly timeoutMs: number, readonly method: string, readonly path: string) {
    super(`${method} ${path} timed out after ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

/** The server could not be reached or the connection broke (DNS, refused, reset). */
export class ConnectionError extends TaskTrackerError {
  constructor(readonly method: string, readonly path: string, cause: unknown) {
    super(`${method} ${path} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'ConnectionError';
  }
}

/** Builds the ApiError of a failed answer from its body (`{error: {code, message}}`) and headers. */
export function apiErrorFrom(
  res: { status: number; statusText: string; headers: Headers },
  body: unknown,
  method: string,
  path: string,
  rateLimit: RateLimitInfo | null,
): ApiError {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const given = typeof error?.code === 'string' && KNOWN_CODES.has(error.code) ? (error.code as ErrorCode) : undefined;
  const code = given ?? CODE_BY_STATUS[res.status] ?? 'internal';
  const message = typeof error?.message === 'string' ? error.message : `${res.status} ${res.statusText || 'error'}`.trim();
  return new ApiError({
    status: res.status,
    code,
    message,
    method,
    path,
    requestId: res.headers.get('x-request-id'),
    retryAfter: parseRetryAfter(res.headers.get('retry-after')),
    rateLimit,
  });
}

/** `retry-after` as seconds: a number of seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The `x-ratelimit-*` headers, or null when the answer has none. */
export function parseRateLimit(headers: Headers): RateLimitInfo | null {
  const limit = headers.get('x-ratelimit-limit');
  if (limit === null) return null;
  const num = (v: string | null) => (v === null || !Number.isFinite(Number(v)) ? 0 : Number(v));
  return { limit: num(limit), remaining: num(headers.get('x-ratelimit-remaining')), resetSeconds: num(headers.get('x-ratelimit-reset')) };
}
