import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor.js';
import { DomainError } from './errors.js';

const refused = (cursor: string) => {
  try {
    decodeCursor(cursor);
  } catch (e) {
    return e instanceof DomainError && e.code === 'invalid_request' && e.message.startsWith('cursor:');
  }
  return false;
};

describe('cursors', () => {
  it('round-trip store positions', () => {
    for (const p of ['task_01jd8z6q3k5wx2n7v9r4t0y1ab', '1767225600000|time_01x', '2026-03-01|tl_1', '12.5|t_1|3']) {
      expect(decodeCursor(encodeCursor(p)!)).toBe(p);
    }
    expect(encodeCursor(null)).toBeNull();
    expect(decodeCursor(undefined)).toBeUndefined();
  });

  it('refuse every one-character alteration with a 400 naming cursor', () => {
    const good = encodeCursor('1767225600000|time_01jd8z6q3k5wx2n7v9r4t0y1ab')!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.%\u0000';
    for (let i = 0; i < good.length; i++) {
      for (const c of alphabet) {
        if (c === good[i]) continue;
        const altered = good.slice(0, i) + c + good.slice(i + 1);
        expect(refused(altered), altered).toBe(true);
      }
    }
  });

  it('refuse garbage, truncation and positions outside the store alphabet even when signed', () => {
    for (const bad of ['', '.', 'garbage', 'abc.def', encodeCursor('x')!.slice(0, -1), `${encodeCursor('x')}x`]) {
      expect(refused(bad), bad).toBe(true);
    }
    expect(refused(encodeCursor('a\u0000b')!)).toBe(true);
    expect(refused(encodeCursor("x' OR 1=1 --")!)).toBe(true);
  });
});
