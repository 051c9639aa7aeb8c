import type { NextFunction, Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { errorHandler } from './errors.js';

function answer(err: unknown) {
  const headers: Record<string, string> = {};
  let status = 0;
  let body: unknown;
  const res = {
    headersSent: false,
    setHeader: (k: string, v: string) => void (headers[k.toLowerCase()] = v),
    status(s: number) {
      status = s;
      return this;
    },
    json(b: unknown) {
      body = b;
      return this;
    },
  } as unknown as Response;
  const req = { id: 'r1', log: { error: () => undefined } } as unknown as Request;
  errorHandler(err, req, res, (() => undefined) as NextFunction);
  return { status, headers, body: body as { error: { code: string; message: string } } };
}

describe('errorHandler', () => {
  it('answers an unavailable database with 503 service_unavailable and Retry-After, not 500', () => {
    for (const err of [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('Knex: Timeout acquiring a connection.'), { name: 'KnexTimeoutError' }),
    ]) {
      const r = answer(err);
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe('service_unavailable');
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    }
  });

  it('keeps other failures a 500 internal without Retry-After', () => {
    const r = answer(new TypeError('boom'));
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe('internal');
    expect(r.headers['retry-after']).toBeUndefined();
  });
});
