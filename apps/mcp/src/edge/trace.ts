import type { Logger } from 'pino';

/** W3C Trace Context `traceparent`: version, trace id, parent id, flags (lower-case hex; all-zero ids are invalid). */
const TRACEPARENT = /^[\da-f]{2}-(?!0{32})[\da-f]{32}-(?!0{16})[\da-f]{16}-[\da-f]{2}$/;

/** The `traceparent` of a request's `_meta` (2026-07-28 defines the key; 2025 clients may send it too), when well-formed. */
export function traceparentOf(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const meta = (body as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  const value = meta && typeof meta === 'object' ? meta.traceparent : undefined;
  return typeof value === 'string' && TRACEPARENT.test(value) ? value : undefined;
}

/** The request's logger, as a child carrying the caller's trace when it sent one, so its lines join the trace. */
export function tracedLogger(log: Logger, body: unknown): Logger {
  const traceparent = traceparentOf(body);
  return traceparent ? log.child({ traceparent, traceId: traceparent.slice(3, 35) }) : log;
}
