import { describe, expect, it } from 'vitest';
import { remembers } from './retries.js';
import { canonicalJson, parseIdempotencyKey, requestFingerprint } from './rules.js';

describe('idempotency keys', () => {
  it('accepts bare and Structured Field forms of one key', () => {
    expect(parseIdempotencyKey('8e03978e-40d5-43e8-bc93-6894a57f9324')).toBe('8e03978e-40d5-43e8-bc93-6894a57f9324');
    expect(parseIdempotencyKey('"8e03978e"')).toBe('8e03978e');
    expect(parseIdempotencyKey('"a \\"b\\" \\\\c"')).toBe('a "b" \\c');
    expect(parseIdempotencyKey('x'.repeat(255))).toHaveLength(255);
  });

  it('refuses empty, too long and non-printable keys with 400 naming the field', () => {
    for (const bad of ['', '  ', '""', 'x'.repeat(256), 'caf\u00e9', 'a\u0000b', 'a\tb']) {
      expect(() => parseIdempotencyKey(bad, 'requestId'), JSON.stringify(bad)).toThrow(/^requestId: /);
    }
  });

  it('fingerprints requests regardless of key order, and tells other bodies and paths apart', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: null }], e: undefined })).toBe('{"a":[{"c":null,"d":2}],"b":1}');
    const fp = (path: string, body: unknown) => requestFingerprint(['POST', path, body]);
    expect(fp('/v1/tasks', { title: 'x', boardId: 'b' })).toBe(fp('/v1/tasks', { boardId: 'b', title: 'x' }));
    expect(fp('/v1/tasks', { title: 'x' })).not.toBe(fp('/v1/tasks', { title: 'y' }));
    expect(fp('/v1/tasks', { title: 'x' })).not.toBe(fp('/v1/docs', { title: 'x' }));
    expect(fp('/v1/tasks', ['1'])).not.toBe(fp('/v1/tasks', [1]));
  });

  it('refuses a value nested deeper than 64 levels before the recursive canonical form walks it', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(() => canonicalJson(deep)).toThrow('request: nested deeper than 64 levels');
    expect(() => requestFingerprint(['POST', '/v1/tasks', deep])).toThrow('request: nested deeper than 64 levels');
    // The parts around a body add no level of their own: a body at the limit still has a fingerprint.
    let atLimit: unknown = 'x';
    for (let i = 0; i < 64; i++) atLimit = [atLimit];
    expect(requestFingerprint(['POST', '/v1/tasks', atLimit])).toMatch(/^[0-9a-f]{64}$/);
  });

  it('remembers successes and refusals, not 400, 429 or 5xx', () => {
    expect([200, 201, 204, 404, 409, 422].every(remembers)).toBe(true);
    expect([400, 429, 500, 503].some(remembers)).toBe(false);
  });
});
