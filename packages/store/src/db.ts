import { mkdirSync } from 'node:fs';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import pg from 'pg';
import { migrationSource } from './migrations/index.js';

// Epoch-ms timestamps and sums live in bigint columns; they fit a JS number.
pg.types.setTypeParser(20, (v: string) => Number(v));
// Calendar days stay YYYY-MM-DD strings, never shifted by the process time zone.
pg.types.setTypeParser(1082, (v: string) => v);

export interface DatabaseOptions {
  /** PostgreSQL URL; when absent, embedded PGlite is used. */
  databaseUrl?: string | undefined;
  /** PGlite data directory; undefined with no URL = in memory. */
  dataDir?: string | undefined;
  poolMax?: number;
}

const firstLine = (m: unknown): string => String(m instanceof Error ? m.message : m).split('\n')[0]!;
/** Knex's own warnings in one line each: the failure itself reaches the caller (a connection error, say) with its message. */
const KNEX_LOG = {
  warn: (m: unknown) => void process.stderr.write(`knex: ${firstLine(m)}\n`),
  error: (m: unknown) => void process.stderr.write(`knex: ${firstLine(m)}\n`),
  deprecate: (m: unknown) => void process.stderr.write(`knex: ${firstLine(m)}\n`),
  debug: () => undefined,
};

/** One connection factory for PostgreSQL (pg) and embedded PGlite. */
export function openDatabase(opts: DatabaseOptions): Knex {
  if (opts.databaseUrl) {
    return knexFactory({
      client: 'pg',
      // No JIT: it pays off for long analytic queries, while here a list whose estimated cost passes the threshold
      // (a count over many rows) would spend tens of milliseconds compiling on every request. Set at connect, free.
      connection: { connectionString: opts.databaseUrl, options: '-c jit=off' },
      pool: { min: 0, max: opts.poolMax ?? 10 },
      log: KNEX_LOG,
    });
  }
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  return knexFactory({
    client: ClientPgLite as unknown as typeof knexFactory.Client,
    dialect: 'postgres',
    connection: opts.dataDir ? { filename: opts.dataDir } : {},
  });
}

export async function migrate(db: Knex): Promise<void> {
  await db.migrate.latest({ migrationSource });
}

export const isPglite = (db: Knex): boolean => db.client.config.client !== 'pg';
