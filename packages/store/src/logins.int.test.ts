import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from './store.js';
import { openTestDatabase } from './testing.js';

let db: Knex;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ db, close } = await openTestDatabase());
});
afterAll(() => close());

/** The statements `fn` sends. */
async function statementsOf<T>(fn: () => Promise<T>): Promise<{ result: T; sql: string[] }> {
  const sql: string[] = [];
  const listener = (q: { sql: string }) => void sql.push(q.sql);
  db.on('query', listener);
  try {
    return { result: await fn(), sql };
  } finally {
    db.removeListener('query', listener);
  }
}

describe('users.logins', () => {
  it('reads a login once: later tables name the same people without a query; other workspaces\' users and unknown ids stay out', async () => {
    const store = createStore(db);
    const ws = await store.workspaces.create({ name: 'Logins', plan: 'business', timezone: 'UTC', memberKeysEnabled: true });
    const other = await store.workspaces.create({ name: 'Other', plan: 'business', timezone: 'UTC', memberKeysEnabled: true });
    const ann = await store.users.create({ workspaceId: ws.id, name: 'Ann', login: 'ann', role: 'dev', isAdmin: false });
    const bob = await store.users.create({ workspaceId: ws.id, name: 'Bob', login: 'bob', role: 'dev', isAdmin: false });
    const eve = await store.users.create({ workspaceId: other.id, name: 'Eve', login: 'eve', role: 'dev', isAdmin: false });

    const first = await statementsOf(() => store.users.logins(ws.id, [ann.id, bob.id, ann.id, 'usr_nobody', eve.id]));
    expect(Object.fromEntries(first.result)).toEqual({ [ann.id]: 'ann', [bob.id]: 'bob' });
    expect(first.sql).toHaveLength(1);

    // Known now: no statement.
    const again = await statementsOf(() => store.users.logins(ws.id, [bob.id, ann.id]));
    expect(Object.fromEntries(again.result)).toEqual({ [ann.id]: 'ann', [bob.id]: 'bob' });
    expect(again.sql).toEqual([]);

    // A deleted user keeps the login, as the tasks that name them do; an id never found is asked again.
    await store.users.softDelete(bob.id, Date.now());
    const carl = await store.users.create({ workspaceId: ws.id, name: 'Carl', login: 'carl', role: 'dev', isAdmin: false });
    const later = await statementsOf(() => store.users.logins(ws.id, [bob.id, carl.id, 'usr_nobody']));
    expect(Object.fromEntries(later.result)).toEqual({ [bob.id]: 'bob', [carl.id]: 'carl' });
    expect(later.sql).toHaveLength(1);

    // A login known in one workspace is not one of another's, asked or not.
    const theirs = await statementsOf(() => store.users.logins(other.id, [eve.id, ann.id]));
    expect(theirs.result).toEqual(new Map([[eve.id, 'eve']]));
    expect(theirs.sql).toHaveLength(1);
    const ours = await statementsOf(() => store.users.logins(ws.id, [eve.id]));
    expect(ours.result).toEqual(new Map());
    expect(ours.sql).toEqual([]);
  });
});
