import { randomBytes } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { migrate, openDatabase } from './db.js';

const TEMPLATE = 'tt_test_template';

/** Where the tests connect: TEST_DATABASE_URL (PostgreSQL itself, or a pooler such as PgBouncer in front of it). */
function testUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || undefined;
}

/**
 * Where databases are created, dropped and the template migrated: TEST_DATABASE_ADMIN_URL, PostgreSQL itself, when
 * the tests go through a pooler (which keeps server connections to the template open, and CREATE DATABASE ...
 * TEMPLATE refuses a template with other sessions); TEST_DATABASE_URL otherwise.
 */
function adminUrl(): string | undefined {
  return process.env.TEST_DATABASE_ADMIN_URL || testUrl();
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Migrates the template database once per run (PostgreSQL only). */
export async function prepareTemplate(): Promise<void> {
  const url = adminUrl();
  if (!url) return;
  const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`DROP DATABASE IF EXISTS ${TEMPLATE} WITH (FORCE)`);
    await admin.raw(`CREATE DATABASE ${TEMPLATE}`);
  } finally {
    await admin.destroy();
  }
  const db = openDatabase({ databaseUrl: withDatabase(url, TEMPLATE) });
  try {
    await migrate(db);
  } finally {
    await db.destroy();
  }
}

/**
 * A fresh database for one test file: a clone of the migrated template on PostgreSQL
 * (TEST_DATABASE_URL), or undefined meaning a new in-memory PGlite.
 */
export async function createTestDatabaseUrl(): Promise<string | undefined> {
  const url = adminUrl();
  const base = testUrl();
  if (!url || !base) return undefined;
  const name = `tt_test_${randomBytes(6).toString('hex')}`;
  if (!/test/.test(name)) throw new Error('refusing to use a database whose name does not say test');
  const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
  } finally {
    await admin.destroy();
  }
  return withDatabase(base, name);
}

/** Drops a database made by createTestDatabaseUrl. */
export async function dropTestDatabase(url: string | undefined): Promise<void> {
  const base = adminUrl();
  if (!url || !base) return;
  const name = new URL(url).pathname.slice(1);
  if (!name.startsWith('tt_test_')) return;
  const admin = knexFactory({ client: 'pg', connection: base, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.destroy();
  }
}

/** A migrated database for one test file (a clone of the template, or a new in-memory PGlite) and its removal. */
export async function openTestDatabase(): Promise<{ db: Knex; close(): Promise<void> }> {
  const url = await createTestDatabaseUrl();
  const db = openDatabase({ databaseUrl: url });
  if (!url) await migrate(db);
  return {
    db,
    async close() {
      await db.destroy();
      await dropTestDatabase(url);
    },
  };
}
