import type { Knex } from 'knex';
import { isPglite, usesPreparedStatements } from './db.js';

type Row = Record<string, any>;

let statements = 0;

/**
 * A statement of a fixed shape whose SQL Knex builds once: later calls only bind values. Building a wide select
 * (column maps, joins, correlated subqueries) costs more CPU than the database spends answering it, and the hot
 * reads (the key of every request, the full task) run thousands of times a second with the same text.
 *
 * On PostgreSQL it is also a named prepared statement: each pooled connection parses it once and then only binds
 * and executes, which spares the server the parse and plan of a long query on every request (on a small machine the
 * database's CPU is the limit). On embedded PGlite, and with DATABASE_PREPARED_STATEMENTS=false (PgBouncer in
 * transaction mode), it runs as a plain (unnamed) query.
 *
 * `build` receives one placeholder per parameter and must use each exactly as a bound value (never in raw SQL text
 * or an identifier); the compiled bindings are then the placeholders (swapped for the call's values) and constants.
 */
export function compiled<P extends unknown[]>(build: (db: Knex, ...params: P) => Knex.QueryBuilder): (db: Knex, ...params: P) => Promise<Row[]> {
  const name = `tt_${++statements}`;
  let cache: { sql: string; slots: Slot[] } | undefined;
  return async (db, ...params) => {
    if (!cache) {
      const { sql, bindings } = build(db, ...(params.map((_, i) => marker(i)) as P)).toSQL();
      const slots = slotsOf(bindings, params.length);
      if (!slots) throw new Error('compiled: a parameter is not a bound value');
      cache = { sql, slots };
    }
    return run(db, cache.sql, bind(cache.slots, params), name);
  };
}

/** Stands for parameter `i` while a statement is built: a string no caller's value holds (PostgreSQL refuses NUL). */
export const marker = (i: number): string => `\u0000${i}\u0000`;
/** The parameter a marker stands for; undefined for any other value. */
export const markerIndex = (v: unknown): number | undefined => (typeof v === 'string' && v.startsWith('\u0000') ? Number(v.slice(1, -1)) : undefined);

/** Where a binding of a statement built with markers comes from: a constant, a parameter, or a list of parameters. */
export type Slot = { value: unknown } | { param: number } | { params: number[] };

/**
 * Where each binding of a statement built with `marker(i)` for its `count` parameters comes from. `sentinels` maps
 * other bound values that stand for a parameter (a number, where Knex parses what it binds, as for a limit) to its
 * index. Undefined when a parameter is not bound, or was changed on its way in (a marker inside a longer string).
 */
export function slotsOf(bindings: readonly unknown[], count: number, sentinels: ReadonlyMap<unknown, number> = new Map()): Slot[] | undefined {
  const index = (v: unknown) => markerIndex(v) ?? sentinels.get(v) ?? -1;
  const used = new Set<number>();
  const slots: Slot[] = [];
  for (const b of bindings) {
    if (Array.isArray(b) && b.some((x) => index(x) >= 0)) {
      const at = b.map(index);
      if (at.some((i) => i < 0)) return undefined;
      at.forEach((i) => used.add(i));
      slots.push({ params: at });
    } else if (index(b) >= 0) {
      if (typeof b === 'string' && b !== marker(index(b))) return undefined;
      used.add(index(b));
      slots.push({ param: index(b) });
    } else if (typeof b === 'string' && b.includes('\u0000')) return undefined;
    else slots.push({ value: b });
  }
  return used.size === count ? slots : undefined;
}

/** A statement's bindings for these parameter values. */
export const bind = (slots: readonly Slot[], params: readonly unknown[]): unknown[] =>
  slots.map((s) => ('value' in s ? s.value : 'params' in s ? s.params.map((i) => params[i]) : params[s.param]));

/** Runs a statement, as the prepared statement `name` on PostgreSQL (undefined: unnamed); its rows. */
async function run(db: Knex, sql: string, values: readonly unknown[], name: string | undefined): Promise<Row[]> {
  // Knex hands its options to pg's query config: a name makes it a prepared statement on each connection. Off behind
  // a pooler in transaction mode (DATABASE_PREPARED_STATEMENTS=false): the SQL is still built once, only not named.
  const options = name && usesPreparedStatements(db) ? { name } : undefined;
  if (direct(db, values)) return runDirect(db.client as unknown as PgClient, sql, values, options);
  const query = db.raw(sql, values as Knex.RawBinding[]);
  if (options) query.options(options);
  return ((await query) as { rows: Row[] }).rows;
}

/** Knex's PostgreSQL client (the database's own, with the request deadline's `_query` and `acquireConnection`). */
interface PgClient {
  acquireConnection(): Promise<PooledConnection>;
  releaseConnection(connection: PooledConnection): Promise<void>;
  _query(connection: PooledConnection, obj: QueryObject): Promise<{ response: { rows: Row[] } }>;
  positionBindings(sql: string): string;
  emit(event: string, ...args: unknown[]): boolean;
}
interface PooledConnection {
  __knexUid?: string;
  __knexTxId?: string;
}
interface QueryObject {
  method: 'raw';
  sql: string;
  bindings: readonly unknown[];
  options?: { name: string } | undefined;
}

/**
 * Whether a statement runs straight on a pooled connection: on PostgreSQL, outside a transaction (whose client checks
 * that it is still open), with every value bound (else Knex's own error). Statements of a transaction, and every
 * statement on PGlite, go through Knex as any query.
 */
const direct = (db: Knex, values: readonly unknown[]): boolean =>
  !isPglite(db) && !(db as { isTransaction?: boolean }).isTransaction && !values.includes(undefined);

/** SQL texts with their `?` placeholders numbered as PostgreSQL wants them ($1, $2, ...), at most POSITIONED_MAX. */
const positioned = new Map<string, string>();
const POSITIONED_MAX = 1000;
function positionedSql(client: PgClient, sql: string): string {
  let text = positioned.get(sql);
  if (text === undefined) {
    text = client.positionBindings(sql);
    if (positioned.size < POSITIONED_MAX) positioned.set(sql, text);
  }
  return text;
}

/**
 * A fixed statement run the way Knex runs a raw query, without building one: a pooled connection (under the request's
 * deadline, as any), the statement, the connection back. A raw query built per call cost about 50 µs of this
 * process's CPU a statement (its runner, its SQL compiled and numbered again, debug formatting of the text), against
 * the database's 100 to 300 for the hot reads (docs/performance.md). Knex's events are kept ('query' before,
 * 'query-response' or 'query-error' after) and an error's message starts with the statement's text as Knex's does
 * (without the values Knex writes into it), so the outage watch and whatever counts statements see these as any other.
 */
async function runDirect(client: PgClient, sql: string, values: readonly unknown[], options: QueryObject['options']): Promise<Row[]> {
  const obj: QueryObject = { method: 'raw', sql: positionedSql(client, sql), bindings: values, options };
  const connection = await client.acquireConnection();
  try {
    const event = { __knexUid: connection.__knexUid, __knexTxId: connection.__knexTxId, ...obj };
    client.emit('query', event);
    let response: { rows: Row[] };
    try {
      ({ response } = await client._query(connection, obj));
    } catch (err) {
      if (err instanceof Error) err.message = `${obj.sql} - ${err.message}`;
      client.emit('query-error', err, event);
      throw err;
    }
    client.emit('query-response', response, event);
    return response.rows;
  } finally {
    await client.releaseConnection(connection);
  }
}

const names = new Map<string, string>();
/** Distinct statement texts named at most; past it a text runs unnamed, so no connection collects them without end. */
const MAX_NAMED = 200;

/**
 * A raw statement whose text is fixed (its variable parts are bound values, lists as arrays) as a prepared statement
 * on PostgreSQL, like `compiled`: for hot writes whose SQL is written out rather than built.
 */
export function named(db: Knex, sql: string, values: readonly unknown[]): Promise<Row[]> {
  let name = names.get(sql);
  if (!name && names.size < MAX_NAMED) names.set(sql, (name = `tt_${++statements}`));
  return run(db, sql, values, name);
}

/**
 * Statements of one family whose text varies with a request's shape (a task list: which filters, which order) but
 * not with its values. Each distinct text is prepared, like `named`, up to `max` texts (past it a text runs
 * unnamed), counted apart from `named`'s so no family crowds out the others. `prepare: false` runs a text unnamed:
 * for a shape whose best plan depends on the values (the planner then plans each request with them).
 */
export function statementFamily(max: number): (db: Knex, sql: string, values: readonly unknown[], prepare: boolean) => Promise<Row[]> {
  const family = new Map<string, string>();
  return (db, sql, values, prepare) => {
    let name = prepare ? family.get(sql) : undefined;
    if (prepare && !name && family.size < max) family.set(sql, (name = `tt_${++statements}`));
    return run(db, sql, values, name);
  };
}
