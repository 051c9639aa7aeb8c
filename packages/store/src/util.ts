import { randomFillSync } from 'node:crypto';
import { ulid } from 'ulid';
import type { Knex } from 'knex';
import { DomainError, type CutPageResult, type PageRequest } from '@tt/domain';
import { parsePosition, position } from './position.js';

/** Sets `key` in `map`, which holds at most `max` entries: a new key forgets the oldest one first. */
export function keepAtMost<K, V>(map: Map<K, V>, max: number, key: K, value: V): void {
  if (!map.has(key) && map.size >= max) map.delete(map.keys().next().value!);
  map.set(key, value);
}

// The random part of ids from the system's CSPRNG, drawn a pool at a time: ulid's own source asks the system for one
// byte per character, 16 calls per id.
const pool = new Uint8Array(4096);
let drawn = pool.length;
const random = (): number => {
  if (drawn === pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  return pool[drawn++]! / 256;
};

/** Time-ordered opaque id with a type prefix: creation order is id order. */
export const newId = (prefix: string): string => `${prefix}_${ulid(undefined, random).toLowerCase()}`;

export const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
export const orNull = (v: unknown): unknown => v ?? null;

/** Day columns come back as Date from pg and as string or Date from PGlite; always YYYY-MM-DD. */
export function dayOrNull(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) {
    return v.toISOString().slice(0, 10);
  }
  return String(v).slice(0, 10);
}

/** YYYY-MM-DD naming a day that exists (2026-02-30 does not). */
export function isCalendarDay(s: string): boolean {
  const d = new Date(`${s}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

export const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Maps a unique violation to a business-rule refusal. */
export function uniqueAsRejected(e: unknown, message: string): never {
  if ((e as { code?: string }).code === '23505') throw new DomainError('rejected', message);
  throw e;
}

/**
 * The position after a page's last row (`next`, when `more` rows follow) and after any of its first n rows
 * (`after(n)`, n from 1 to `count`; null when nothing follows them), from the position after row n (`at`).
 */
export function positionsOf(count: number, more: boolean, at: (n: number) => string): { next: string | null; after(n: number): string | null } {
  const after = (n: number): string | null => (n >= 1 && (n < count || (n === count && more)) ? at(n) : null);
  return { next: after(count), after };
}

/**
 * Keyset page by id over a base query; the count uses the same filters. The page names the position after any of its
 * rows (`after`).
 */
export async function pageById<R, T>(
  base: Knex.QueryBuilder,
  idColumn: string,
  page: PageRequest,
  map: (row: R) => T,
  select: (q: Knex.QueryBuilder) => Knex.QueryBuilder = (q) => q.select('*'),
): Promise<CutPageResult<T>> {
  const rowsQ = select(base.clone());
  if (page.after !== undefined) rowsQ.where(idColumn, '>', page.after);
  const [rows, countRow] = await concurrently<[R[], { n: unknown } | undefined]>(base, [
    () => rowsQ.orderBy(idColumn, 'asc').limit(page.limit + 1) as PromiseLike<R[]>,
    () => base.clone().clearSelect().clearOrder().count({ n: '*' }).first() as PromiseLike<{ n: unknown } | undefined>,
  ]);
  const more = rows.length > page.limit;
  const kept = more ? rows.slice(0, page.limit) : rows;
  const idKey = idColumn.split('.').pop()!;
  const { next, after } = positionsOf(kept.length, more, (n) => String((kept[n - 1] as Record<string, unknown>)[idKey]));
  return { rows: kept.map(map), next, total: num(countRow?.n), after };
}

/** The order of a newest-first page: (`column`, `id`) descending, the order its index keeps. */
const newestFirst = (key: { column: string; id: string }) => [{ column: key.column, order: 'desc' as const }, { column: key.id, order: 'desc' as const }];

/**
 * Keyset page newest first over (`column`, `id`), both descending. The position is "<value>|<id>", the value an
 * epoch-ms number or a YYYY-MM-DD day; the count uses `base`, the rows `select(base)`; `after` names the position after
 * any of its rows.
 */
export async function pageNewestFirst<R extends Record<string, unknown>, T>(
  base: Knex.QueryBuilder,
  key: { column: string; id: string; value: 'epoch' | 'day' },
  page: PageRequest,
  map: (row: R) => T,
  select: (q: Knex.QueryBuilder) => Knex.QueryBuilder,
): Promise<CutPageResult<T>> {
  const rowsQ = select(base.clone());
  if (page.after !== undefined) {
    // A real calendar day (a forged 2026-02-30 would fail the ::date cast as a 500) or a whole epoch-ms number.
    const [value, id] = parsePosition(page.after, 2, ([v]) => (key.value === 'day' ? isCalendarDay(v) : /^\d{1,16}$/.test(v)));
    const cast = key.value === 'day' ? '?::date' : '?::bigint';
    rowsQ.whereRaw(`(??, ??) < (${cast}, ?)`, [key.column, key.id, key.value === 'day' ? value : Number(value), id]);
  }
  const [rows, countRow] = await concurrently<[R[], { n: unknown } | undefined]>(base, [
    () => rowsQ.orderBy(newestFirst(key)).limit(page.limit + 1) as PromiseLike<R[]>,
    () => countOf(base, key, page.countAtMost),
  ]);
  const more = rows.length > page.limit;
  const kept = more ? rows.slice(0, page.limit) : rows;
  const valueOf = (r: R) => {
    const v = r[key.column.split('.').pop()!];
    return key.value === 'day' ? dayOrNull(v) : Number(v);
  };
  const { next, after } = positionsOf(kept.length, more, (n) => {
    const row = kept[n - 1]!;
    return position(valueOf(row), String(row[key.id.split('.').pop()!]));
  });
  const total = num(countRow?.n);
  if (page.countAtMost === undefined) return { rows: kept.map(map), next, total, after };
  return { rows: kept.map(map), next, total: Math.min(total, page.countAtMost), totalCapped: total > page.countAtMost, after };
}

/**
 * All the matches, or at most `atMost + 1` of them: those are taken in the page's own order, so the count walks the
 * page's index and stops there (its cost is that of a page of `atMost` rows, whatever the match set).
 */
function countOf(base: Knex.QueryBuilder, key: { column: string; id: string }, atMost: number | undefined): PromiseLike<{ n: unknown } | undefined> {
  if (atMost === undefined) return base.clone().count({ n: '*' }).first() as PromiseLike<{ n: unknown } | undefined>;
  const first = base
    .clone()
    .select(base.client.raw('1'))
    .orderBy(newestFirst(key))
    .limit(atMost + 1);
  return base.client.queryBuilder().count({ n: '*' }).from(first.as('counted')).first() as PromiseLike<{ n: unknown } | undefined>;
}

/**
 * Runs independent queries at once on the pool, but one after another inside a transaction: a transaction is one
 * connection, which takes one query at a time (pg deprecates queuing them; PGlite would serialize them anyway).
 */
export async function concurrently<T extends readonly unknown[]>(
  on: Knex | Knex.QueryBuilder,
  queries: { [K in keyof T]: () => PromiseLike<T[K]> },
): Promise<T> {
  const fns = queries as unknown as Array<() => PromiseLike<unknown>>;
  const inTransaction = Boolean((on as unknown as { client?: { transacting?: boolean } }).client?.transacting);
  if (!inTransaction) return (await Promise.all(fns.map((f) => f()))) as unknown as T;
  const out: unknown[] = [];
  for (const f of fns) out.push(await f());
  return out as unknown as T;
}
