import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { DomainError, ERROR_STATUS, type ErrorCode } from '@tt/domain';

export function sendError(res: Response, code: ErrorCode, message: string): void {
  res.status(ERROR_STATUS[code]).json({ error: { code, message } });
}

export const notFoundRoute: RequestHandler = (req, res) => {
  sendError(res, 'not_found', `No route ${req.method} ${req.path}`);
};

/** One error table: domain errors by code, client faults of the HTTP layer as 400, the rest 500 with the request id. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) return;
  if (err instanceof DomainError) return sendError(res, err.code, err.message);
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
