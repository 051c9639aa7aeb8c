import type { Knex } from 'knex';
import * as core from './001-core.js';

const MIGRATIONS: Record<string, Knex.Migration> = {
  '001-core': core,
};

/** Migrations compiled into the bundle, so built apps need no migration directory. */
export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(MIGRATIONS).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => MIGRATIONS[name]!,
};
