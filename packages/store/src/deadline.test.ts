import { expect, it } from 'vitest';
import { databaseUnavailable } from './availability.js';
import { openDatabase } from './db.js';
import { DeadlineExceeded, withDeadline } from './deadline.js';
import { openTestPglite } from './testing.js';

// On embedded PGlite statements run in this process and cannot be abandoned halfway: the deadline only keeps a
// statement from starting after it, and lets the transaction's ROLLBACK through (PGlite's one connection is kept).
it('on PGlite, starts no statement after the deadline, rolls the transaction back, and leaves the connection usable', async () => {
  // The run's migrated snapshot when there is one (quicker to open than initdb); a new PGlite otherwise.
  const db = openDatabase({ pglite: await openTestPglite() });
  try {
    await db.schema.createTable('t', (t) => t.text('id').primary());
    const err = await withDeadline(50, () =>
      db.transaction(async (trx) => {
        await trx('t').insert({ id: 'a' });
        // Work in the process past the deadline (busy: a timer inside a PGlite transaction is not what is tested).
        for (const end = Date.now() + 120; Date.now() < end; );
        await trx('t').insert({ id: 'b' });
      }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeadlineExceeded);
    expect(databaseUnavailable(err)).toMatch(/deadline/);
    expect(await db('t').select('id')).toEqual([]);
    await withDeadline(1000, () => db('t').insert({ id: 'c' }));
    expect(await db('t').select('id')).toEqual([{ id: 'c' }]);
  } finally {
    await db.destroy();
  }
});
