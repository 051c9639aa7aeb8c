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

/**
 * A statement that can commit (a COMMIT, or a write outside a transaction) was sent, and its answer did not come back
 * within the request's deadline and the grace after it (or its connection broke before it did): it may have
 * committed or not. Never an unavailable database's 503, which says that nothing was written: 504 `outcome_unknown`.
 */
export class OutcomeUnknown extends Error {
  override readonly name = 'OutcomeUnknown';
  readonly code = 'TT_OUTCOME_UNKNOWN';
  constructor(readonly reason: string) {
    super(`the outcome of a write is unknown: ${reason}`);
  }
}

/** Whether an error says a write's outcome is unknown (OutcomeUnknown, or an error caused by one). */
export function outcomeUnknown(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  if ((err as { code?: unknown }).code === 'TT_OUTCOME_UNKNOWN') return true;
  return outcomeUnknown((err as { cause?: unknown }).cause, depth + 1);
}

/** How long after a request's deadline the answer of a statement that can commit is waited for, by default (ms). */
export const OUTCOME_GRACE_MS = 5000;

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
  /**
   * True while a statement of the request that can commit (a COMMIT, a write outside a transaction) is on its way: no
   * answer may be given instead of its outcome.
   */
  readonly committing: boolean;
  /** Statements that can commit on their way. */
  commits: number;
  /**
   * Epoch ms until which the outcome of a statement that can commit is waited for: the deadline plus the grace, once
   * such a statement was sent (0 before).
   */
  outcomeBy: number;
  /**
   * Set when such a statement's outcome came after the deadline: the rest of the request (answering that outcome)
   * runs until `outcomeBy`, not `at`.
   */
  extended: boolean;
  /** Set once the request was answered normally: work it left behind (a background job) runs without the deadline. */
  settled: boolean;
  /** The longest round trip of the request's statements so far, ms: a COMMIT with less time left is not sent. */
  slowestMs: number;
}

const current = new AsyncLocalStorage<Deadline>();

/**
 * A deadline as the async context holds it. A class, not an object literal in `withDeadline`: every promise and timer
 * made under the deadline keeps the store, and a getter written in `withDeadline` would keep that function's scope
 * with it (the request's handler, its request and response), so a timer armed during a request (a pooled
 * connection's idle timer) or a promise a finalization registry holds kept the whole request alive until a full
 * collection, and every request's objects were promoted to the old generation.
 */
class RequestDeadline implements Deadline {
  commits = 0;
  outcomeBy = 0;
  extended = false;
  settled = false;
  slowestMs = 0;
  constructor(readonly at: number) {}
  get committing(): boolean {
    return this.commits > 0;
  }
}

/**
 * Runs `fn` (and everything it starts) under a deadline `ms` from now; database work past it is abandoned. A lazy
 * thenable that `fn` returns (a Knex query builder runs when awaited) is started inside the deadline too.
 */
export function withDeadline<T>(ms: number, fn: (deadline: Deadline) => T): T {
  const deadline = new RequestDeadline(Date.now() + ms);
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
  /** How long after the deadline the answer of a statement that can commit is waited for (ms; OUTCOME_GRACE_MS). */
  outcomeGraceMs?: number | undefined;
}

interface PgConnection {
  __knex__disposed?: unknown;
  connection?: { stream?: { destroy(): void; resetAndDestroy?(): void } };
}

interface Hooks {
  slowMs: number;
  outcomeGraceMs: number;
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

const COMMIT = /^\s*commit\b/i;
const ROLLBACK = /^\s*rollback\b/i;
/** Statements that only read, unless a word below says they write (a data-modifying CTE, SELECT ... FOR UPDATE). */
const READS = /^\s*(select|with|values|table|show|explain)\b/i;
const WRITES = /\b(insert|update|delete|merge|truncate|copy)\b/i;

/**
 * Whether a statement can commit a write: a COMMIT, or outside a transaction (where each statement commits alone)
 * anything but a plain read. Inside a transaction nothing but its COMMIT commits. When in doubt, yes: a read taken
 * for a write only waits for its answer a little longer at a deadline.
 */
export function canCommit(sql: string, inTransaction: boolean): boolean {
  const kind = kindOf(sql);
  return kind.commit || (!inTransaction && kind.writes);
}

/** What the deadline asks of a statement's text: whether it is a COMMIT, a ROLLBACK, or anything but a plain read. */
interface StatementKind {
  commit: boolean;
  rollback: boolean;
  writes: boolean;
}
/**
 * The kinds of the texts seen, at most KINDS_MAX: the same few hundred texts run again and again (prepared statements,
 * BEGIN, COMMIT), and a write's text runs to thousands of characters, which the regular expressions above would scan
 * on every run.
 */
const kinds = new Map<string, StatementKind>();
const KINDS_MAX = 1000;
function kindOf(sql: string): StatementKind {
  let kind = kinds.get(sql);
  if (kind === undefined) {
    kind = { commit: COMMIT.test(sql), rollback: ROLLBACK.test(sql), writes: !READS.test(sql) || WRITES.test(sql) };
    if (kinds.size < KINDS_MAX) kinds.set(sql, kind);
  }
  return kind;
}

/**
 * Whether a statement's failure is the server's answer for it (an error it sent: the statement did not commit), rather
 * than a connection that broke, a reply that never came, or a session the server ended (FATAL, a connection or
 * shutdown SQLSTATE: it may end a session right after a commit, before the commit's answer went out); those leave the
 * outcome unknown.
 */
function answeredByServer(err: unknown): boolean {
  const e = err as { severity?: unknown; code?: unknown } | null;
  if (typeof e?.severity !== 'string' || /^(FATAL|PANIC)$/.test(e.severity)) return false;
  return !(typeof e.code === 'string' && /^(08|57P0)/.test(e.code));
}
/** pg refuses a statement on a connection already closed before sending anything. */
const neverSent = (err: unknown): boolean => err instanceof Error && /not queryable/i.test(err.message);

/** A statement that can commit has its outcome: one fewer on its way; heard after the deadline, the request answers it. */
function settled(d: Deadline): void {
  d.commits--;
  if (Date.now() > d.at) d.extended = true;
}

/** True only while the deadline's own `_query` hands a statement to pg (what `guardStatements` checks in tests). */
let handing = false;
/** Whether a statement pg is sending now was handed over by the deadline's `_query` (tests: nothing bypasses the rule). */
export const handedByDeadline = (): boolean => handing;

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
  const hooks: Hooks = { slowMs: o.slowMs ?? 250, outcomeGraceMs: o.outcomeGraceMs ?? OUTCOME_GRACE_MS, slow: new Set() };
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
      const now = Date.now();
      // A request that heard a write's outcome after its deadline has until the end of the grace to answer it.
      const left = (d.extended ? d.outcomeBy : d.at) - now;
      const kind = kindOf(obj.sql);
      const rollback = kind.rollback;
      if (left <= 0) {
        // PGlite's one connection cannot be discarded: its ROLLBACK runs, so the next request finds no open transaction.
        if (!pg && rollback) return query();
        if (pg) discard(connection, 'request deadline exceeded');
        // On PostgreSQL a ROLLBACK past the deadline is the reset itself: the server rolls back a connection that is
        // gone. It succeeds, so the transaction fails with the error that ended it, not with its rollback's.
        if (rollback) return Promise.resolve(Object.assign(obj, { response: { command: 'ROLLBACK', rows: [], rowCount: 0, fields: [] } }));
        return Promise.reject(new DeadlineExceeded());
      }
      const commit = kind.commit;
      // The one rule for writes: a statement that can commit (a COMMIT, a write outside a transaction) is either not
      // sent, and the request may answer 503 knowing nothing committed, or sent, and then its outcome is the answer.
      const commits = canCommit(obj.sql, (this as { transacting?: boolean }).transacting === true);
      // Not sent when its answer cannot come back in time, judging by the request's slowest statement: a transaction is
      // rolled back (its connection discarded), a write outside one is simply not made.
      if (commits && pg && left < d.slowestMs) {
        if (commit) discard(connection, 'request deadline exceeded');
        return Promise.reject(new DeadlineExceeded(commit ? 'a transaction that could not commit in time' : 'a write that could not be answered in time'));
      }
      // Sent: its answer is waited for past the deadline, until the grace ends; meanwhile no answer is given instead.
      if (commits) {
        d.commits++;
        d.outcomeBy = Math.max(d.outcomeBy, d.at + hooks.outcomeGraceMs);
      }
      const limit = commits ? d.outcomeBy - now : left;
      const started = now;
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
                discard(connection, commits ? 'no outcome within the grace' : 'request deadline exceeded');
              }),
            limit,
          )
        : undefined;
      let sent: Promise<unknown>;
      handing = true;
      try {
        sent = query();
      } catch (err) {
        sent = Promise.reject(err);
      } finally {
        handing = false;
      }
      return sent.then(
        (r) => {
          done = true;
          clearTimeout(timer);
          const ms = Date.now() - started;
          if (commits) settled(d);
          if (ms > d.slowestMs) d.slowestMs = ms;
          if (ms > hooks.slowMs) for (const fn of hooks.slow) fn(ms);
          return r;
        },
        (err: unknown) => {
          done = true;
          clearTimeout(timer);
          if (commits) settled(d);
          // A write sent whose answer never came (the grace ended, or its connection broke first): it may have
          // committed, so it is never a 503. Its connection is not used again.
          if (commits && pg && !answeredByServer(err) && !neverSent(err)) {
            discard(connection, 'outcome unknown');
            const unknown = new OutcomeUnknown(expired || isReadTimeout(err)
              ? `no answer within the request's deadline and ${hooks.outcomeGraceMs} ms after it`
              : `its connection failed before the answer came (${err instanceof Error ? err.message : String(err)})`);
            for (const fn of hooks.slow) fn(Date.now() - started, unknown);
            throw unknown;
          }
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
