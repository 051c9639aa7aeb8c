import { describe, expect, it } from 'vitest';
import { DomainError, ERROR_STATUS, formatIssues, invalid, isDomainError, notFound, rejected } from './errors.js';

describe('ERROR_STATUS', () => {
  it('maps every public error code to its HTTP status', () => {
    expect(ERROR_STATUS).toEqual({
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
    });
  });

  it('gives DomainError the status of its code', () => {
    for (const code of Object.keys(ERROR_STATUS) as Array<keyof typeof ERROR_STATUS>) {
      expect(new DomainError(code, 'x').status, code).toBe(ERROR_STATUS[code]);
    }
  });
});

describe('DomainError helpers', () => {
  it('build errors with the right code, status and message', () => {
    const nf = notFound('Task WEB-1');
    expect(nf).toBeInstanceOf(Error);
    expect(nf.name).toBe('DomainError');
    expect([nf.code, nf.status, nf.message]).toEqual(['not_found', 404, 'Task WEB-1 not found']);
    const inv = invalid('body.title', 'must not be empty');
    expect([inv.code, inv.status, inv.message]).toEqual(['invalid_request', 400, 'body.title: must not be empty']);
    const rej = rejected('column is full');
    expect([rej.code, rej.status, rej.message]).toEqual(['rejected', 422, 'column is full']);
  });

  it('isDomainError tells domain errors from others', () => {
    expect(isDomainError(notFound('x'))).toBe(true);
    expect(isDomainError(new Error('x'))).toBe(false);
    expect(isDomainError({ code: 'not_found', message: 'x' })).toBe(false);
    expect(isDomainError(undefined)).toBe(false);
  });
});

describe('formatIssues', () => {
  it('joins path and message, dotting nested and numeric segments', () => {
    expect(
      formatIssues([
        { path: ['title'], message: 'must not be empty' },
        { path: ['checklist', 0, 'text'], message: 'expected string' },
      ]),
    ).toBe('title: must not be empty; checklist.0.text: expected string');
  });

  it('puts the prefix in front of every path', () => {
    expect(formatIssues([{ path: ['a', 'b'], message: 'bad' }], 'query')).toBe('query.a.b: bad');
    expect(formatIssues([{ path: [], message: 'bad' }], 'body')).toBe('body: bad');
  });

  it('names the root when there is neither path nor prefix', () => {
    expect(formatIssues([{ path: [], message: 'expected object' }])).toBe('(root): expected object');
  });

  it('lists each unrecognized key as an unknown field', () => {
    expect(formatIssues([{ path: [], code: 'unrecognized_keys', keys: ['foo', 'bar'], message: 'Unrecognized keys' }])).toBe(
      'foo: unknown field; bar: unknown field',
    );
    expect(formatIssues([{ path: ['nested'], code: 'unrecognized_keys', keys: ['x'], message: 'Unrecognized key' }], 'body')).toBe(
      'body.nested.x: unknown field',
    );
  });

  it('returns an empty string for no issues', () => {
    expect(formatIssues([])).toBe('');
  });
});
