import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
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

// Every promise and timer made under a deadline keeps the deadline (the async context's store). A store that kept
// the function it was made for would keep the request it serves for as long as any of those lives: a pooled
// connection's idle timer, a finalization registry's held value. Then every request outlived two young collections
// and was promoted to the old generation.
const noop = () => undefined;
it('the deadline a request runs under does not keep the request alive', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  let gone: WeakRef<object> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const serve = () => {
    const request = { body: 'x'.repeat(1_000) };
    gone = new WeakRef(request);
    return withDeadline(1_000, async () => {
      // A timer armed during the request that outlives it, as a connection pool's idle timer does.
      timer = setTimeout(noop, 60_000);
      return request.body.length;
    });
  };
  expect(await serve()).toBe(1_000);
  await new Promise((r) => setImmediate(r));
  gc();
  try {
    expect(gone!.deref()).toBeUndefined();
  } finally {
    clearTimeout(timer);
  }
});
