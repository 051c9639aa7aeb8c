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

/** One connection factory for PostgreSQL (pg) and embedded PGlite. */
export function openDatabase(opts: DatabaseOptions): Knex {
  if (opts.databaseUrl) {
    return knexFactory({
      client: 'pg',
      connection: opts.databaseUrl,
      pool: { min: 0, max: opts.poolMax ?? 10 },
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
