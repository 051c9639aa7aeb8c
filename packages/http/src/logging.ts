import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { pino, type Logger } from 'pino';
import { pinoHttp } from 'pino-http';

export function createLogger(level: string, name: string): Logger {
  return pino({ level, name, redact: ['req.headers.authorization', 'req.headers.cookie'] });
}

/** pino request logging with a request id (taken from x-request-id when sane) echoed back. */
export function requestLogger(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (req, res) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
      res.setHeader('x-request-id', id);
      return id;
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'info' : 'debug'),
    serializers: { req: (req) => ({ id: req.id, method: req.method, url: req.url, remoteAddress: req.remoteAddress }) },
  }) as unknown as RequestHandler;
}
