import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { DomainError, ERROR_STATUS, RETRY_AFTER_UNAVAILABLE_S, type ErrorCode } from '@tt/domain';
import { databaseUnavailable, outcomeUnknown } from '@tt/store';

export function sendError(res: Response, code: ErrorCode, message: string): void {
  res.status(ERROR_STATUS[code]).json({ error: { code, message } });
}

export const notFoundRoute: RequestHandler = (req, res) => {
  sendError(res, 'not_found', `No route ${req.method} ${req.path}`);
};

/**
 * Whether an error says the database is unavailable (stopped, unreachable, restarting, too slow): such a request is
 * answered 503 `service_unavailable` with `Retry-After`, never 500. The outage itself is logged once by the runtime's
 * database watch, not here per request.
 */
export const isUnavailable = (err: unknown): boolean => databaseUnavailable(err) !== undefined;

export const UNAVAILABLE_MESSAGE = `The database is temporarily unavailable; retry in ${RETRY_AFTER_UNAVAILABLE_S} s`;

/**
 * A write was sent and its answer did not come back within the deadline and its grace: it may have committed. Not
 * 503 (which says nothing was written): retry with the same Idempotency-Key to replay it if it did, or run it if not.
 */
export const isOutcomeUnknown = (err: unknown): boolean => outcomeUnknown(err);

export const OUTCOME_UNKNOWN_MESSAGE =
  'The database did not answer in time whether the change was saved; it may have been. Retry with the same Idempotency-Key to get its answer (or make it once), or read the object before changing it again';

/** 503 service_unavailable with Retry-After. */
export function sendUnavailable(res: Response): void {
  res.setHeader('retry-after', String(RETRY_AFTER_UNAVAILABLE_S));
  sendError(res, 'service_unavailable', UNAVAILABLE_MESSAGE);
}

/**
 * One error table: domain errors by code, client faults of the HTTP layer as 400, a write whose outcome is unknown as
 * 504, an unavailable database as 503, the rest 500 with the request id.
 */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) return;
  if (err instanceof DomainError) {
    if (err.code === 'service_unavailable') res.setHeader('retry-after', String(RETRY_AFTER_UNAVAILABLE_S));
    return sendError(res, err.code, err.message);
  }
  if (isOutcomeUnknown(err)) {
    req.log?.warn({ err: (err as Error).message }, 'write answered 504 outcome_unknown');
    return sendError(res, 'outcome_unknown', OUTCOME_UNKNOWN_MESSAGE);
  }
  if (isUnavailable(err)) return sendUnavailable(res);
  const e = err as { type?: string; status?: number; message?: string };
  if (e.type === 'entity.parse.failed') return sendError(res, 'invalid_request', `body: malformed JSON (${e.message ?? 'parse error'})`);
  if (e.type === 'entity.too.large') return sendError(res, 'invalid_request', 'body: too large');
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') return sendError(res, 'invalid_request', `body: ${e.message}`);
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    return sendError(res, 'invalid_request', e.message ?? 'bad request');
  }
  req.log?.error({ err }, 'unhandled error');
  sendError(res, 'internal', `Internal error; request id ${String(req.id)}`);
};
