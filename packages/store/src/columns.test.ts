import { describe, expect, it } from 'vitest';
import { columnMap } from './columns.js';

interface Rec {
  id: string;
  createdAt: number;
  labels: string[];
  odd: string | null;
}

const REC = columnMap<Rec>('recs', {
  id: 'id',
  createdAt: { column: 'created_at', read: Number },
  labels: { column: 'labels', read: (v) => v ?? [] },
  odd: { column: 'we"ird\\col', read: (v) => v ?? null },
});

describe('columnMap', () => {
  it('reads a row into a record with every field, in map order, converting as told', () => {
    const rec = REC.read({ id: 't1', created_at: '1700000000000', labels: null, 'we"ird\\col': 'x', extra: 1 });
    expect(rec).toEqual({ id: 't1', createdAt: 1700000000000, labels: [], odd: 'x' });
    expect(Object.keys(rec)).toEqual(['id', 'createdAt', 'labels', 'odd']);
  });

  it('reads the columns of a prefix, and each prefix on its own', () => {
    const row = { id: 'a', p_id: 'b', p_created_at: '5', p_labels: ['l'], created_at: '1' };
    expect(REC.readAs(row, 'p_')).toEqual({ id: 'b', createdAt: 5, labels: ['l'], odd: null });
    expect(REC.readAs(row, '')).toEqual({ id: 'a', createdAt: 1, labels: [], odd: null });
    expect(REC.readAs(row, 'p_')).toEqual({ id: 'b', createdAt: 5, labels: ['l'], odd: null });
  });

  it('selects and writes the stored columns', () => {
    expect(REC.select()).toEqual(['recs.id', 'recs.created_at', 'recs.labels', 'recs.we"ird\\col']);
    expect(REC.selectAs('p_')).toEqual(['recs.id as p_id', 'recs.created_at as p_created_at', 'recs.labels as p_labels', 'recs.we"ird\\col as p_we"ird\\col']);
    expect(REC.write({ id: 'x', createdAt: 3 })).toEqual({ id: 'x', created_at: 3 });
  });
});
