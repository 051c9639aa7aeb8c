import { describe, expect, it } from 'vitest';
import { groupCommit } from './group-commit.js';

/** A statement stand-in: records each batch, and writes rows that are even numbers (odd ones exist already). */
function recorder(failOn?: number) {
  const batches: number[][] = [];
  const run = async (rows: number[]) => {
    batches.push(rows);
    await new Promise((r) => setTimeout(r, 5));
    if (failOn !== undefined && rows.includes(failOn)) throw new Error(`row ${failOn} is bad`);
    return rows.map((r) => r % 2 === 0);
  };
  return { batches, run };
}

describe('groupCommit', () => {
  it('a lone caller runs at once; callers who arrive meanwhile share the next statement, each told its own count', async () => {
    const r = recorder();
    const g = groupCommit(r.run);
    const first = g.write([2]);
    const rest = [g.write([4, 5]), g.write([7]), g.write([6, 8, 10])];
    expect(await first).toBe(1);
    expect(await Promise.all(rest)).toEqual([1, 0, 3]);
    expect(r.batches).toEqual([[2], [4, 5, 7, 6, 8, 10]]);
  });

  it('never splits a caller and keeps a statement within maxRows', async () => {
    const r = recorder();
    const g = groupCommit(r.run, 3);
    await Promise.all([g.write([0]), g.write([2, 4]), g.write([6, 8]), g.write([10, 12, 14, 16])]);
    expect(r.batches).toEqual([[0], [2, 4], [6, 8], [10, 12, 14, 16]]);
  });

  it('a failed statement is retried per caller, so only the caller with the bad row fails', async () => {
    const r = recorder(9);
    const g = groupCommit(r.run);
    const first = g.write([2]);
    const [a, bad, b] = await Promise.allSettled([g.write([4]), g.write([9]), g.write([6])]);
    expect(await first).toBe(1);
    expect(a).toEqual({ status: 'fulfilled', value: 1 });
    expect(bad).toMatchObject({ status: 'rejected', reason: { message: 'row 9 is bad' } });
    expect(b).toEqual({ status: 'fulfilled', value: 1 });
    expect(r.batches).toEqual([[2], [4, 9, 6], [4], [9], [6]]);
    // Still usable afterwards.
    expect(await g.write([8])).toBe(1);
  });

  it('writes nothing for no rows', async () => {
    const r = recorder();
    expect(await groupCommit(r.run).write([])).toBe(0);
    expect(r.batches).toEqual([]);
  });
});
