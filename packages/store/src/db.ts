import { mkdirSync } from 'node:fs';
import knexFactory, { type Knex } from 'knex';
import type { PGlite } from '@electric-sql/pglite';
import ClientPgLite from 'knex-pglite';
import pg from 'pg';
import { installDeadline, OUTCOME_GRACE_MS } from './deadline.js';
import { migrationSource } from './migrations/index.js';

// Epoch-ms timestamps and sums live in bigint columns; they fit a JS number.
pg.types.setTypeParser(20, (v: string) => Number(v));
// Calendar days stay YYYY-MM-DD strings, never shifted by the process time zone.
pg.types.setTypeParser(1082, (v: string) => v);

/**
 * A text[] as PostgreSQL writes it, when it is one-dimensional and no element is quoted or null (ids, logins, label
 * names): its elements, split at the commas; else undefined. PostgreSQL quotes an element that holds a comma, a brace,
 * a quote, a backslash or white space, or is empty or spells NULL in any case, and writes a null element as a bare
 * NULL, so a bare element is the string itself. A page of tasks parses two arrays a row; the general parser took four
 * times as long.
 */
export function plainTextArray(v: string): string[] | undefined {
  if (v === '{}') return [];
  if (v.charCodeAt(0) !== 123 || v.charCodeAt(1) === 123 || v.includes('"') || v.includes('\\')) return undefined;
  const items = v.slice(1, -1).split(',');
  return items.includes('NULL') ? undefined : items;
}
/** text[]'s type oid (pg's typings list only scalar types). */
export const TEXT_ARRAY = 1009 as Parameters<typeof pg.types.getTypeParser>[0];
const anyTextArray = pg.types.getTypeParser(TEXT_ARRAY);
pg.types.setTypeParser(TEXT_ARRAY, (v: string) => plainTextArray(v) ?? anyTextArray(v));

export interface DatabaseOptions {
  /** PostgreSQL URL; when absent, embedded PGlite is used. */
  databaseUrl?: string | undefined;
  /** PGlite data directory; undefined with no URL = in memory. */
  dataDir?: string | undefined;
  /**
   * Test-only seam: an embedded PGlite already open (the tests load one from a migrated snapshot, which skips initdb),
   * used instead of a new one when there is no URL; closed with the Knex instance.
   */
  pglite?: PGlite | undefined;
  poolMax?: number;
  /** Longest wait for a new connection (TCP and start-up), ms; default from DATABASE_CONNECT_TIMEOUT_MS or 3000. */
  connectTimeoutMs?: number;
  /** Longest wait for a pooled connection, ms; default from DATABASE_ACQUIRE_TIMEOUT_MS or 5000. */
  acquireTimeoutMs?: number;
  /** Server-side statement_timeout, ms (0 = none); default from DATABASE_STATEMENT_TIMEOUT_MS or 15000. */
  statementTimeoutMs?: number;
  /**
   * Named prepared statements for the hot statements (`compiled.ts`); default from DATABASE_PREPARED_STATEMENTS or
   * true. Off behind a pooler in transaction mode (PgBouncer), where a statement prepared on one server connection is
   * missing on the next.
   */
  preparedStatements?: boolean;
  /** Requests waiting for a pooled connection at most, the next refused at once; default from DATABASE_MAX_WAITING or 100. */
  maxWaiting?: number;
  /** A statement slower than this (ms) means a brownout to the outage watch; default from DATABASE_SLOW_MS or 250. */
  slowMs?: number;
  /** How long after a request's deadline a write's answer is waited for (ms); default from DATABASE_OUTCOME_GRACE_MS or 5000. */
  outcomeGraceMs?: number;
}

/** The DATABASE_* settings of the connection factory, as the environment gives them (checked at start by each app's config). */
export interface DatabaseSettings {
  connectTimeoutMs: number;
  acquireTimeoutMs: number;
  statementTimeoutMs: number;
  preparedStatements: boolean;
  maxWaiting: number;
  slowMs: number;
  outcomeGraceMs: number;
}

export const DEFAULT_DATABASE_SETTINGS: DatabaseSettings = { connectTimeoutMs: 3000, acquireTimeoutMs: 5000, statementTimeoutMs: 15_000, preparedStatements: true, maxWaiting: 100, slowMs: 250, outcomeGraceMs: OUTCOME_GRACE_MS };

const intOr = (value: string | undefined, fallback: number): number => (value !== undefined && /^\d+$/.test(value.trim()) ? Number(value) : fallback);

/** DATABASE_CONNECT_TIMEOUT_MS, DATABASE_ACQUIRE_TIMEOUT_MS, DATABASE_STATEMENT_TIMEOUT_MS, DATABASE_PREPARED_STATEMENTS, DATABASE_MAX_WAITING, DATABASE_SLOW_MS, DATABASE_OUTCOME_GRACE_MS. */
export function databaseSettings(env: NodeJS.ProcessEnv = process.env): DatabaseSettings {
  const d = DEFAULT_DATABASE_SETTINGS;
  const prepared = env.DATABASE_PREPARED_STATEMENTS?.trim().toLowerCase();
  return {
    connectTimeoutMs: intOr(env.DATABASE_CONNECT_TIMEOUT_MS, d.connectTimeoutMs),
    acquireTimeoutMs: intOr(env.DATABASE_ACQUIRE_TIMEOUT_MS, d.acquireTimeoutMs),
    statementTimeoutMs: intOr(env.DATABASE_STATEMENT_TIMEOUT_MS, d.statementTimeoutMs),
    preparedStatements: !(prepared === 'false' || prepared === '0'),
    maxWaiting: intOr(env.DATABASE_MAX_WAITING, d.maxWaiting),
    slowMs: intOr(env.DATABASE_SLOW_MS, d.slowMs),
    outcomeGraceMs: intOr(env.DATABASE_OUTCOME_GRACE_MS, d.outcomeGraceMs),
  };
}

const firstLine = (m: unknown): string => String(m instanceof Error ? m.message : m).split('\n')[0]!;
/** Knex's own warnings in one line each: the failure itself reaches the caller (a connection error, say) with its message. */
const KNEX_LOG = {
  warn: (m: unknown) => void process.stderr.write(`knex: ${firstLine(m)}\n`),
  error: (m: unknown) => void process.stderr.write(`knex: ${firstLine(m)}\n`),
  deprecate: (m: unknown) => void process.stderr.write(`knex: ${firstLine(m)}\n`),
  debug: () => undefined,
};

const SESSION = '-c jit=off -c max_parallel_workers_per_gather=0';

/**
 * One connection factory for PostgreSQL (pg) and embedded PGlite. Work run under a request's deadline
 * (`withDeadline`) is bounded by it on the client side (`deadline.ts`).
 */
export function openDatabase(opts: DatabaseOptions): Knex {
  const env = databaseSettings();
  const db = connect(opts, env);
  installDeadline(db, { maxWaiting: opts.maxWaiting ?? env.maxWaiting, slowMs: opts.slowMs ?? env.slowMs, outcomeGraceMs: opts.outcomeGraceMs ?? env.outcomeGraceMs });
  return db;
}

function connect(opts: DatabaseOptions, env: DatabaseSettings): Knex {
  if (opts.databaseUrl) {
    const statementTimeoutMs = opts.statementTimeoutMs ?? env.statementTimeoutMs;
    return knexFactory({
      client: 'pg',
      connection: {
        connectionString: opts.databaseUrl,
        // No JIT: it pays off for long analytic queries, while here a list whose estimated cost passes the threshold
        // (a count over many rows) would spend tens of milliseconds compiling on every request. Set at connect, free.
        // No parallel workers either: starting them costs milliseconds a page of 100 rows never wins back, and a
        // generic plan for a category list at 1 000 000 tasks chose a Gather Merge that ran 5 times slower.
        // The statement timeout bounds a statement on a database too busy to answer (the request then gets a 503).
        options: `${SESSION}${statementTimeoutMs > 0 ? ` -c statement_timeout=${statementTimeoutMs}` : ''}`,
        // A stopped or unreachable server fails the connect within this time, so no request waits longer for it.
        connectionTimeoutMillis: opts.connectTimeoutMs ?? env.connectTimeoutMs,
        keepAlive: true,
      },
      pool: { min: 0, max: opts.poolMax ?? 10 },
      // Knex's default is 60 s: a request would hang that long on a pool whose connections are all stuck.
      acquireConnectionTimeout: opts.acquireTimeoutMs ?? env.acquireTimeoutMs,
      log: KNEX_LOG,
      ...{ ttPreparedStatements: opts.preparedStatements ?? env.preparedStatements },
    });
  }
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  return knexFactory({
    client: ClientPgLite as unknown as typeof knexFactory.Client,
    dialect: 'postgres',
    // knex-pglite takes an open instance as `connection.pglite` (its own option, outside Knex's connection type).
    connection: (opts.pglite ? { pglite: opts.pglite } : opts.dataDir ? { filename: opts.dataDir } : {}) as Knex.StaticConnectionConfig,
  });
}

/**
 * Runs the pending migrations. On PostgreSQL they run on a connection of their own without the statement timeout: an
 * index built on a large table may take longer than any request should.
 */
export async function migrate(db: Knex): Promise<void> {
  if (isPglite(db)) return void (await db.migrate.latest({ migrationSource }));
  const config = db.client.config as Knex.Config;
  const connection = config.connection as Knex.PgConnectionConfig & { options?: string };
  const options = String(connection.options ?? '').replace(/\s*-c statement_timeout=\d+/, '');
  const own = knexFactory({ ...config, connection: { ...connection, options }, pool: { min: 0, max: 1 } });
  try {
    await own.migrate.latest({ migrationSource });
  } finally {
    await own.destroy();
  }
}

/** Whether the hot statements of `compiled.ts` run as named prepared statements on this database. */
export const usesPreparedStatements = (db: Knex): boolean =>
  !isPglite(db) && (db.client.config as { ttPreparedStatements?: boolean }).ttPreparedStatements !== false;

export const isPglite = (db: Knex): boolean => db.client.config.client !== 'pg';
