import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';

/**
 * A request's database work did not finish by its deadline and was abandoned on the client side. It means the
 * database is unavailable for this request (503 service_unavailable with Retry-After), never a fault of the request.
 */
export class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
  readonly code = 'TT_DEADLINE';
  constructor(what = 'database work') {
    super(`request deadline exceeded: ${what} abandoned`);
  }
}

/** Too many requests already wait for a database connection: the next ones are refused at once (503), not queued. */
export class DatabaseBusy extends Error {
  override readonly name = 'DatabaseBusy';
  readonly code = 'TT_DB_BUSY';
  constructor(waiting: number) {
    super(`database busy: ${waiting} requests already wait for a connection`);
  }
}

/** One request's deadline, as its database work sees it. */
export interface Deadline {
  /** Epoch ms by which the request's database work must be done. */
  readonly at: number;
  /** True while a COMMIT of the request is on its way: a late answer must not be given instead of its outcome. */
  committing: boolean;
  /** Set once the request was answered normally: work it left behind (a background job) runs without the deadline. */
  settled: boolean;
  /** The longest round trip of the request's statements so far, ms: a COMMIT with less time left is not sent. */
  slowestMs: number;
}

const current = new AsyncLocalStorage<Deadline>();

/**
 * Runs `fn` (and everything it starts) under a deadline `ms` from now; database work past it is abandoned. A lazy
 * thenable that `fn` returns (a Knex query builder runs when awaited) is started inside the deadline too.
 */
export function withDeadline<T>(ms: number, fn: (deadline: Deadline) => T): T {
  const deadline: Deadline = { at: Date.now() + ms, committing: false, settled: false, slowestMs: 0 };
  return current.run(deadline, () => {
    const r = fn(deadline) as unknown;
    if (r instanceof Promise || !r || typeof (r as { then?: unknown }).then !== 'function') return r as T;
    return new Promise((resolve, reject) => void (r as PromiseLike<unknown>).then(resolve, reject)) as T;
  });
}

/** The deadline of the work running now, if it has one that still applies. */
export function activeDeadline(): Deadline | undefined {
  const d = current.getStore();
  return d && !d.settled ? d : undefined;
}

/** Runs `fn` outside any request's deadline (work a request starts but must not bound, e.g. a probe). */
export const withoutDeadline = <T>(fn: () => T): T => current.exit(fn);

export interface DeadlineOptions {
  /** Requests waiting for a pooled connection at most; the next get DatabaseBusy at once (0 = no limit). */
  maxWaiting?: number | undefined;
  /** A statement slower than this (ms) is reported to the slow listeners (the outage watch's brownout). */
  slowMs?: number | undefined;
}

interface PgConnection {
  __knex__disposed?: unknown;
  connection?: { stream?: { destroy(): void; resetAndDestroy?(): void } };
}

interface Hooks {
  slowMs: number;
  slow: Set<(ms: number, err?: unknown) => void>;
}
const HOOKS = Symbol('tt.deadline');

/**
 * Abandons a connection: marked disposed (the pool never hands it out again: it is destroyed on its next
 * validation) and its socket reset, so whatever it still had to send (a COMMIT held by the network) is dropped by
 * the kernel rather than delivered late, and the server rolls back an open transaction when it sees the reset.
 */
function discard(connection: PgConnection, why: string): void {
  connection.__knex__disposed ??= why;
  const stream = connection.connection?.stream;
  if (!stream) return;
  if (typeof stream.resetAndDestroy === 'function') stream.resetAndDestroy();
  else stream.destroy();
}

const isReadTimeout = (err: unknown): boolean => err instanceof Error && err.message === 'Query read timeout';

/**
 * Puts a request's deadline (`withDeadline`) on the database work of `db`, on the client side, so it holds whatever
 * the server or the network does (a server that answers slowly, a proxy that stops forwarding without a reset, a
 * pooler in transaction mode that ignores start-up options):
 * - a connection is waited for until the deadline at most, and not at all when `maxWaiting` requests already wait;
 * - each statement carries a client-side timer of the time left; one that does not answer in time fails with
 *   DeadlineExceeded and its connection is discarded (reset, never returned to the pool);
 * - no statement starts after the deadline: a transaction that runs out of time never sends its COMMIT, and its
 *   connection is discarded, so the server rolls it back. Nor does a COMMIT start with less time left than the
 *   request's slowest statement took: its answer would come after the request's 503.
 * On embedded PGlite statements run in this process and cannot be abandoned halfway; only the last rule applies.
 * Work outside a deadline (the worker, the outbox relay, migrations) runs as before.
 */
export function installDeadline(db: Knex, o: DeadlineOptions = {}): void {
  type Obj = { sql: string; options?: object };
  interface Client {
    config: { client?: unknown; [HOOKS]?: Hooks };
    _query(connection: PgConnection, obj: Obj): Promise<unknown>;
    acquireConnection(): Promise<unknown>;
    pool?: { acquire(): { promise: Promise<unknown>; reject(err: unknown): void }; numPendingAcquires(): number };
  }
  const client = db.client as unknown as Client;
  if (client.config[HOOKS]) return;
  const hooks: Hooks = { slowMs: o.slowMs ?? 250, slow: new Set() };
  // On the shared config: a transaction's client is a fresh object of the client's class that shares only the config.
  client.config[HOOKS] = hooks;
  const pg = client.config.client === 'pg';
  const maxWaiting = o.maxWaiting ?? 0;
  const Base = Object.getPrototypeOf(client) as { constructor: new (...args: never[]) => Client };
  const base = Base as unknown as Client;

  // A subclass of this database's client class, put under this client: Knex makes each transaction's client from the
  // class's prototype (not from the instance), so the deadline reaches BEGIN, the statements and COMMIT too.
  const Deadlined = class extends (Base.constructor as new (...args: never[]) => Client) {
    override _query(connection: PgConnection, obj: Obj): Promise<unknown> {
      const query = () => base._query.call(this, connection, obj);
      const d = activeDeadline();
      if (!d) {
        if (!pg || !hooks.slow.size) return query();
        const started = Date.now();
        return query().then((r) => {
          const ms = Date.now() - started;
          if (ms > hooks.slowMs) for (const fn of hooks.slow) fn(ms);
          return r;
        });
      }
      const left = d.at - Date.now();
      const rollback = /^\s*rollback\b/i.test(obj.sql);
      if (left <= 0) {
        // PGlite's one connection cannot be discarded: its ROLLBACK runs, so the next request finds no open transaction.
        if (!pg && rollback) return query();
        if (pg) discard(connection, 'request deadline exceeded');
        // On PostgreSQL a ROLLBACK past the deadline is the reset itself: the server rolls back a connection that is
        // gone. It succeeds, so the transaction fails with the error that ended it, not with its rollback's.
        if (rollback) return Promise.resolve(Object.assign(obj, { response: { command: 'ROLLBACK', rows: [], rowCount: 0, fields: [] } }));
        return Promise.reject(new DeadlineExceeded());
      }
      const commit = /^\s*commit\b/i.test(obj.sql);
      // A COMMIT whose answer cannot come back in time, judging by the request's slowest statement, is not sent: the
      // transaction is rolled back (its connection discarded) and the request answers 503 knowing nothing committed,
      // rather than leaving the outcome to a reply that would arrive after its 503.
      if (commit && pg && left < d.slowestMs) {
        discard(connection, 'request deadline exceeded');
        return Promise.reject(new DeadlineExceeded('a transaction that could not commit in time'));
      }
      if (commit) d.committing = true;
      const started = Date.now();
      // The statement's own timer: when it expires, the answer is looked for once more after the loop has read its
      // sockets (setImmediate runs after the poll phase), so an answer that came in time but was not read yet (a busy
      // process) is not taken for a silent database; only then is the connection reset, which fails the statement.
      let done = false;
      let expired = false;
      const timer = pg
        ? setTimeout(
            () =>
              setImmediate(() => {
                if (done) return;
                expired = true;
                discard(connection, 'request deadline exceeded');
              }),
            left,
          )
        : undefined;
      return query().then(
        (r) => {
          done = true;
          clearTimeout(timer);
          const ms = Date.now() - started;
          if (ms > d.slowestMs) d.slowestMs = ms;
          if (ms > hooks.slowMs) for (const fn of hooks.slow) fn(ms);
          return r;
        },
        (err: unknown) => {
          done = true;
          clearTimeout(timer);
          if (commit) d.committing = false;
          if (expired || isReadTimeout(err)) {
            discard(connection, 'request deadline exceeded');
            if (rollback) return Object.assign(obj, { response: { command: 'ROLLBACK', rows: [], rowCount: 0, fields: [] } });
            const late = new DeadlineExceeded();
            for (const fn of hooks.slow) fn(Date.now() - started, late);
            throw late;
          }
          throw err;
        },
      );
    }

    override acquireConnection(): Promise<unknown> {
      const acquire = () => base.acquireConnection.call(this);
      const d = activeDeadline();
      const pool = this.pool;
      if (!pg || !d || !pool) return acquire();
      const waiting = pool.numPendingAcquires();
      if (maxWaiting > 0 && waiting >= maxWaiting) return Promise.reject(new DatabaseBusy(waiting));
      const left = d.at - Date.now();
      if (left <= 0) return Promise.reject(new DeadlineExceeded('waiting for a database connection'));
      // Knex asks the pool synchronously: the pending acquire made by this call is the one to give up at the deadline.
      const own = pool.acquire;
      let op: { reject(err: unknown): void } | undefined;
      pool.acquire = () => (op = own.call(pool));
      let p: Promise<unknown>;
      try {
        p = acquire();
      } finally {
        pool.acquire = own;
      }
      const timer = setTimeout(() => op?.reject(new DeadlineExceeded('waiting for a database connection')), left);
      return p.finally(() => clearTimeout(timer));
    }
  };
  Object.setPrototypeOf(client, Deadlined.prototype);
}

/**
 * Calls `fn` for each statement slower than the database's slow threshold, and for each statement abandoned at its
 * deadline (with the DeadlineExceeded). Returns the function that stops it.
 */
export function onSlowStatement(db: Knex, fn: (ms: number, err?: unknown) => void): () => void {
  const hooks = (db.client as { config: { [HOOKS]?: Hooks } }).config[HOOKS];
  if (!hooks) return () => undefined;
  hooks.slow.add(fn);
  return () => void hooks.slow.delete(fn);
}

/** The slow threshold of `db`'s statements, ms (undefined when no deadline is installed). */
export const slowStatementMs = (db: Knex): number | undefined => (db.client as { config: { [HOOKS]?: Hooks } }).config[HOOKS]?.slowMs;
