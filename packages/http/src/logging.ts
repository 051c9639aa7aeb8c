import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { pino, type Level, type Logger } from 'pino';
import { defineOnPrototype } from './request-prototype.js';

export function createLogger(level: string, name: string): Logger {
  return pino({ level, name, redact: ['req.headers.authorization', 'req.headers.cookie'] });
}

declare module 'node:http' {
  interface IncomingMessage {
    /** The request id, echoed as x-request-id. */
    id?: string | number | object;
    /** The process logger with this request's id bound. */
    log?: Logger;
  }
}

const REQUEST_ID = /^[\w.-]{1,100}$/;

/**
 * 2xx and 3xx at debug, 4xx and 503 at info, other 5xx and failures at error. A 503 (database unavailable, a /ready
 * that is not ready) is expected during an outage, whose cause the database watch logs once.
 */
const levelOf = (status: number, failed: boolean): Level =>
  failed || (status >= 500 && status !== 503) ? 'error' : status >= 400 ? 'info' : 'debug';

const LOGGER = Symbol('logger');
const LOG = Symbol('log');
type Logged = IncomingMessage & { [LOGGER]?: Logger; [LOG]?: Logger };

/** `req.log`: the request's child logger, bound on first use (error paths), so a request that logs nothing builds none. */
const LOG_ACCESSOR = {
  get(this: Logged) {
    return (this[LOG] ??= this[LOGGER]?.child({ req: requestFields(this) }));
  },
  set(this: Logged, value: unknown) {
    this[LOG] = value as Logger | undefined;
  },
};

/**
 * Request logging with a request id (taken from x-request-id when sane) echoed back. One line per finished request
 * (`request completed` / `request errored`), built only when its level is enabled: a served request at the default
 * level costs a timestamp and a listener, not a child logger with the request serialized into it.
 */
export function requestLogger(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('x-request-id', id);
    req.id = id;
    const started = Date.now();
    defineOnPrototype(req, 'log', LOG_ACCESSOR);
    (req as Logged)[LOGGER] = logger;
    const done = (err?: unknown) => {
      res.off('finish', done);
      res.off('close', done);
      finished(logger, req, res, started, err instanceof Error ? err : undefined);
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}

/** What a log line says of its request (never its headers: the key stays out of the log). */
const requestFields = (req: IncomingMessage & { originalUrl?: string }) => ({
  id: req.id, method: req.method, url: req.originalUrl ?? req.url, remoteAddress: req.socket?.remoteAddress,
});

function finished(logger: Logger, req: IncomingMessage, res: ServerResponse, started: number, err: Error | undefined): void {
  const aborted = !res.writableFinished;
  const level = levelOf(res.statusCode, Boolean(err));
  if (!logger.isLevelEnabled(level)) return;
  const line = {
    req: requestFields(req),
    res: { statusCode: res.statusCode },
    responseTime: Date.now() - started,
    ...(err ? { err } : {}),
  };
  logger[level](line, err || res.statusCode >= 500 ? 'request errored' : aborted ? 'request aborted' : 'request completed');
}
