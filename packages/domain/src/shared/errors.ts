/** Error codes of the public contract, with the HTTP status each maps to. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  invalid_key: 401,
  key_expired: 401,
  insufficient_scope: 403,
  forbidden: 403,
  ip_not_allowed: 403,
  api_disabled: 403,
  plan_required: 403,
  not_found: 404,
  archived: 409,
  idempotency_conflict: 409,
  precondition_failed: 412,
  rejected: 422,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal: 500,
  service_unavailable: 503,
  outcome_unknown: 504,
} as const;

/** Seconds a client is told to wait (`Retry-After`) before retrying a `service_unavailable` answer. */
export const RETRY_AFTER_UNAVAILABLE_S = 5;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** A failure the client can act on; carries a code from the spec's error table. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const notFound = (what: string): DomainError => new DomainError('not_found', `${what} not found`);
/**
 * A reference in a request (a body field or filter) to an object that does not exist or is invisible to the key: 404
 * like a missing path object, never 400, so a restricted key cannot tell hidden objects from missing ones.
 */
export const missingRef = (field: string, what: string): DomainError => new DomainError('not_found', `${field}: ${what} not found`);
export const invalid = (field: string, fault: string): DomainError =>
  new DomainError('invalid_request', `${field}: ${fault}`);
export const rejected = (reason: string): DomainError => new DomainError('rejected', reason);

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;

/** Formats zod issues as "path: message; path: message" so every faulty field is named. */
export function formatIssues(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string; code?: string; keys?: string[] }>,
  prefix = '',
): string {
  return issues
    .map((i) => {
      const path = [prefix, ...i.path.map(String)].filter(Boolean).join('.');
      if (i.code === 'unrecognized_keys' && i.keys) {
        return i.keys.map((k) => `${[path, k].filter(Boolean).join('.')}: unknown field`).join('; ');
      }
      return `${path || '(root)'}: ${i.message}`;
    })
    .join('; ');
}

/** An error message ending with where the caller finds valid values (an endpoint, a tool), when there is a hint. */
export const withHint = (message: string, hint?: string): string => (hint ? `${message}; ${hint}` : message);
