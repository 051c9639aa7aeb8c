import type { Knex } from 'knex';

type Row = Record<string, any>;

/**
 * A statement of a fixed shape whose SQL Knex builds once: later calls only bind values. Building a wide select
 * (column maps, joins, correlated subqueries) costs more CPU than the database spends answering it, and the hot
 * reads (the key of every request, the full task) run thousands of times a second with the same text.
 *
 * `build` receives one placeholder per parameter and must use each exactly as a bound value (never in raw SQL text
 * or an identifier); the compiled bindings are then the placeholders (swapped for the call's values) and constants.
 */
export function compiled<P extends unknown[]>(build: (db: Knex, ...params: P) => Knex.QueryBuilder): (db: Knex, ...params: P) => Promise<Row[]> {
  let cache: { sql: string; slots: Array<{ param: number } | { value: unknown }> } | undefined;
  return async (db, ...params) => {
    if (!cache) {
      const marks = params.map((_, i) => `\u0000param${i}\u0000`);
      const { sql, bindings } = build(db, ...(marks as P)).toSQL();
      const slots = bindings.map((b) => {
        const at = typeof b === 'string' ? marks.indexOf(b) : -1;
        return at >= 0 ? { param: at } : { value: b };
      });
      if (marks.some((_, i) => !slots.some((s) => 'param' in s && s.param === i))) throw new Error('compiled: a parameter is not a bound value');
      cache = { sql, slots };
    }
    const values = cache.slots.map((s) => ('param' in s ? params[s.param] : s.value));
    const result = await db.raw(cache.sql, values as Knex.RawBinding[]);
    return (result as { rows: Row[] }).rows;
  };
}
