import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { migrate, openDatabase } from './db.js';
import { activeDeadline, canCommit, handedByDeadline } from './deadline.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated PGlite data directory (a tar file) that each test file loads; empty on PostgreSQL. */
    pgliteSnapshot: string;
    /** The run's migrated template database on PostgreSQL, which each test file clones; empty on PGlite. */
    pgTemplate: string;
  }
}

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

/** Runs one statement (CREATE or DROP DATABASE) on a connection of its own to `url`, closed after it. */
async function onAdmin(url: string, sql: string): Promise<void> {
  const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(sql);
  } finally {
    await admin.destroy();
  }
}

/** What globalSetup provided under `key` (vitest's inject), or undefined when empty or not under vitest's runner. */
async function provided(key: 'pgliteSnapshot' | 'pgTemplate'): Promise<string | undefined> {
  try {
    // Imported here, not at the top: globalSetup imports this module outside vitest's runner.
    const { inject } = await import('vitest');
    return inject(key) || undefined;
  } catch {
    return undefined; // not under vitest's runner
  }
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * On PGlite: migrates a new in-memory PGlite once per run and writes its data directory to a tar file, which each test
 * file loads instead of running initdb and the migrations again (most of the ~2 s a new in-memory PGlite costs).
 * Returns the file and its removal.
 */
export async function preparePgliteSnapshot(): Promise<{ file: string; remove(): void }> {
  const pglite = new PGlite();
  const db = openDatabase({ pglite });
  try {
    await migrate(db);
    const dump = await pglite.dumpDataDir('none');
    const file = join(tmpdir(), `tt-test-pglite-${process.pid}-${randomBytes(4).toString('hex')}.tar`);
    writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
    return { file, remove: () => rmSync(file, { force: true }) };
  } finally {
    await db.destroy();
  }
}

/**
 * Creates and migrates the run's template database (PostgreSQL only), under a name of its own: runs at the same time
 * on one server (two checkouts, CI beside a developer) each keep theirs, where one fixed name had each run drop the
 * other's template in the middle of it. Returns the name and the template's removal.
 */
export async function prepareTemplate(): Promise<{ name: string; remove(): Promise<void> } | undefined> {
  const url = adminUrl();
  if (!url) return undefined;
  const name = `tt_test_template_${randomBytes(6).toString('hex')}`;
  await onAdmin(url, `CREATE DATABASE ${name}`);
  const db = openDatabase({ databaseUrl: withDatabase(url, name) });
  try {
    await migrate(db);
  } finally {
    await db.destroy();
  }
  return { name, remove: () => onAdmin(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** The run's template database (globalSetup's prepareTemplate, through vitest's provide). */
async function templateName(): Promise<string> {
  const name = await provided('pgTemplate');
  if (!name) throw new Error('no template database: run the tests with vitest, whose globalSetup (scripts/test-global-setup.ts) makes it');
  return name;
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
  await onAdmin(url, `CREATE DATABASE ${name} TEMPLATE ${await templateName()}`);
  return withDatabase(base, name);
}

/**
 * An in-memory PGlite loaded from the run's migrated snapshot (globalSetup), or undefined on PostgreSQL or without a
 * snapshot (then openDatabase opens a new one, and the migrations run).
 */
export async function openTestPglite(): Promise<PGlite | undefined> {
  if (testUrl()) return undefined;
  const file = await provided('pgliteSnapshot');
  if (!file) return undefined;
  const pglite = new PGlite({ loadDataDir: new Blob([readFileSync(file)]) });
  await pglite.waitReady;
  return pglite;
}

/**
 * Where a test file's runtime opens its database: `databaseUrl`, a clone of the template on PostgreSQL, or `pglite`,
 * an in-memory PGlite from the migrated snapshot. Pass both to createRuntime / openDatabase; `drop` removes the clone.
 */
export async function createTestDatabase(): Promise<{ databaseUrl: string | undefined; pglite: PGlite | undefined; drop(): Promise<void> }> {
  const databaseUrl = await createTestDatabaseUrl();
  const pglite = databaseUrl ? undefined : await openTestPglite();
  return { databaseUrl, pglite, drop: () => dropTestDatabase(databaseUrl) };
}

/** Drops a database made by createTestDatabaseUrl. */
export async function dropTestDatabase(url: string | undefined): Promise<void> {
  const base = adminUrl();
  if (!url || !base) return;
  const name = new URL(url).pathname.slice(1);
  if (!name.startsWith('tt_test_')) return;
  await onAdmin(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/** A migrated database for one test file (a clone of the template, or a new in-memory PGlite) and its removal. */
export async function openTestDatabase(): Promise<{ db: Knex; close(): Promise<void> }> {
  const url = await createTestDatabaseUrl();
  const pglite = url ? undefined : await openTestPglite();
  const db = openDatabase({ databaseUrl: url, pglite });
  if (!url) await migrate(db); // on the snapshot: nothing pending
  return {
    db,
    async close() {
      await db.destroy();
      await dropTestDatabase(url);
    },
  };
}

/**
 * Watches every statement pg sends under a request's deadline and lists those that can commit (a write, a COMMIT) but
 * did not come through the deadline's `_query`, the one place that decides whether such a statement may be abandoned
 * (so that a write answered 503 never commits). A write path that bypasses it (a connection's own `query`, a client
 * or pool of its own) shows up here; a read that does (the outage watch's `select 1` probe) commits nothing and does
 * not. PostgreSQL only. Returns the bypassing statements, how many statements were seen, and the stop.
 */
export function guardStatements(): { bypassed: string[]; seen(): number; stop(): void } {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const own = proto.query;
  const bypassed: string[] = [];
  let seen = 0;
  proto.query = function (this: unknown, ...args: unknown[]) {
    if (activeDeadline()) {
      seen++;
      const q = args[0] as string | { text?: string };
      const text = typeof q === 'string' ? q : String(q?.text);
      if (!handedByDeadline() && canCommit(text, false)) bypassed.push(text);
    }
    return own.apply(this, args);
  };
  return { bypassed, seen: () => seen, stop: () => void (proto.query = own) };
}
