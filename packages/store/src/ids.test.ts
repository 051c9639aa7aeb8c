import { describe, expect, it } from 'vitest';
import { newId } from './util.js';

describe('newId', () => {
  it('is a prefixed lower-case ULID: unique, time-ordered across milliseconds, every random character in use', async () => {
    const ids = Array.from({ length: 20_000 }, () => newId('tsk'));
    for (const id of ids.slice(0, 50)) expect(id).toMatch(/^tsk_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // The random part (the last 16 characters) draws on all 32 characters of the alphabet, in every position.
    for (let at = 10; at < 26; at++) expect(new Set(ids.map((id) => id.slice(4)[at])).size, `position ${at}`).toBe(32);
    const before = newId('tsk');
    await new Promise((r) => setTimeout(r, 3));
    expect(newId('tsk') > before).toBe(true);
  });
});
