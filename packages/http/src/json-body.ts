import express, { type RequestHandler } from 'express';
import { assertShallow } from '@tt/domain';

/**
 * express.json, then the domain's depth limit on what it parsed: a body nested deeper than MAX_JSON_DEPTH answers 400
 * invalid_request before any middleware (idempotency fingerprints) or route (storable text, zod) walks it.
 */
export function jsonBody(options: { limit: string; strict: boolean }): RequestHandler {
  const parse = express.json(options);
  return (req, res, next) => {
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      try {
        assertShallow(req.body, 'body');
      } catch (e) {
        return next(e);
      }
      next();
    });
  };
}
