import { describe, expect, it } from 'vitest';
import { RANK_STEP, rankBetween } from './rank.js';

describe('rankBetween', () => {
  it('starts an empty column at 0', () => {
    expect(rankBetween(null, null)).toBe(0);
  });

  it('goes one step above the first item when placed at the top', () => {
    expect(RANK_STEP).toBe(1024);
    expect(rankBetween(null, 0)).toBe(-1024);
    expect(rankBetween(null, 5.5)).toBe(5.5 - 1024);
  });

  it('goes one step below the last item when placed at the bottom', () => {
    expect(rankBetween(0, null)).toBe(1024);
    expect(rankBetween(-2048, null)).toBe(-1024);
  });

  it('returns the midpoint between two neighbours', () => {
    expect(rankBetween(0, 1024)).toBe(512);
    expect(rankBetween(-1024, 0)).toBe(-512);
    expect(rankBetween(1, 2)).toBe(1.5);
  });

  it('keeps producing strictly-between ranks on repeated halving until no room is left', () => {
    let after = 1024;
    let steps = 0;
    for (;;) {
      const r = rankBetween(0, after);
      if (r === null) break;
      expect(r).toBeGreaterThan(0);
      expect(r).toBeLessThan(after);
      after = r;
      steps++;
    }
    expect(steps).toBeGreaterThan(10);
    expect(after).toBeLessThanOrEqual(2e-6);
  });

  it('returns null when the neighbours are equal, reversed or too close', () => {
    expect(rankBetween(5, 5)).toBeNull();
    expect(rankBetween(6, 5)).toBeNull();
    expect(rankBetween(0, 1e-6)).toBeNull();
    expect(rankBetween(1, 1 + 1e-7)).toBeNull();
  });

  it('still splits a gap just above the minimum', () => {
    expect(rankBetween(0, 4e-6)).toBe(2e-6);
  });

  it('returns null when floating point cannot represent a value in between', () => {
    const before = 2 ** 60;
    const after = before + 256; // adjacent doubles at this magnitude
    expect(rankBetween(before, after)).toBeNull();
  });
});
