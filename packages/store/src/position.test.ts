import { describe, expect, it } from 'vitest';
import { DomainError } from '@tt/domain';
import { parsePosition, position } from './position.js';

const refused = (after: string, count: number, valid?: (parts: string[]) => boolean) => {
  try {
    parsePosition(after, count, valid);
  } catch (e) {
    return e instanceof DomainError && e.code === 'invalid_request' && e.message.startsWith('cursor:');
  }
  return false;
};

describe('positions', () => {
  it('keep the format of issued cursors', () => {
    expect(position(1767225600000, 'time_01x')).toBe('1767225600000|time_01x');
    expect(position('2026-03-01', 'tl_1')).toBe('2026-03-01|tl_1');
    expect(position(12.5, 't_1', 3)).toBe('12.5|t_1|3');
  });

  it('parse back into their parts', () => {
    expect(parsePosition('12.5|t_1|3', 3)).toEqual(['12.5', 't_1', '3']);
    expect(parsePosition(position('2026-03-01', 'tl_1'), 2, ([day]) => day.length === 10)).toEqual(['2026-03-01', 'tl_1']);
  });

  it('refuse another number of parts, an empty part or a refused part with a 400 naming cursor', () => {
    for (const bad of ['', 'x', '|x', 'x|', 'x|y|z']) expect(refused(bad, 2), bad).toBe(true);
    expect(refused('12.5|t_1', 3)).toBe(true);
    expect(refused('2026-02-30|tl_1', 2, ([day]) => day !== '2026-02-30')).toBe(true);
  });
});
