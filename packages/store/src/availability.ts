import type { Knex } from 'knex';

/** Socket errors of a database that is stopped, restarting or out of reach. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);

/**
 * SQLSTATEs of a server that cannot serve now: class 08 (connection exception; PgBouncer answers 08P01 while its
 * server is down), 57P01-57P03 (shutting down, crashed, starting up), 53300 (too many connections) and 57014
 * (canceled: the statement timeout, a database too slow to answer in time).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300|57014)$/;

/** What pg and Knex say when a connection ends, cannot start in time, or the pool has none to give. */
const MESSAGES = /Connection terminated|connection timeout|Connection ended unexpectedly|not queryable|Query read timeout|Timeout acquiring a connection/i;

/**
 * Why an error means the database is unavailable (stopped, unreachable, restarting, overloaded) rather than a fault
 * of the request or the code; undefined when it does not. The answer is a short reason for logs.
 */
export function databaseUnavailable(err: unknown, depth = 0): string | undefined {
  if (!err || typeof err !== 'object' || depth > 4) return undefined;
  const e = err as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  const message = typeof e.message === 'string' ? e.message.split('\n')[0]! : '';
  if (typeof e.code === 'string' && SOCKET_CODES.has(e.code)) return message || e.code;
  if (typeof e.code === 'string' && UNAVAILABLE_STATES.test(e.code)) return `${e.code}: ${message}`;
  if (e.name === 'KnexTimeoutError' || MESSAGES.test(message)) return message;
  // Node's connection attempts to several addresses fail as one AggregateError.
  if (Array.isArray(e.errors)) for (const inner of e.errors) {
    const why = databaseUnavailable(inner, depth + 1);
    if (why) return why;
  }
  return databaseUnavailable(e.cause, depth + 1);
}

interface WatchLog {
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface DatabaseWatch {
  /** True from the first failure that says the database is unavailable until a statement succeeds again. */
  readonly down: boolean;
  /** Feeds a failure seen elsewhere (a readiness check); true when it means the database is unavailable. */
  report(err: unknown): boolean;
  stop(): void;
}

/**
 * Watches a PostgreSQL pool for outages and logs each one twice: its first failure (with the reason) and the recovery
 * (with its length), never once per request. While down it probes with `select 1` every `probeMs`, so the recovery is
 * noticed (and logged) even when no request comes; requests themselves need nothing: the pool opens new connections as
 * soon as the server accepts them.
 *
 * A failure declares an outage only once `select 1` probes of its own fail too (up to CONFIRM_PROBES: each failure
 * on a dead pooled connection discards it, so the next probe gets another). A failure while the server serves is a
 * leftover of the last outage, not a new one: a connection attempt started while the server was down that fails
 * after it came back, or pooled connections the old server closed without a word. Such a failure still costs its
 * request a 503; it is not logged as an outage.
 */
/** Probes that must all fail before a failure counts as an outage. */
const CONFIRM_PROBES = 3;

export function watchDatabase(db: Knex, log: WatchLog, probeMs = 1000): DatabaseWatch {
  let downSince: number | undefined;
  let probe: NodeJS.Timeout | undefined;
  let probing = false;
  let confirming = false;
  let stopped = false;

  const recovered = () => {
    if (downSince === undefined) return;
    log.info({ downMs: Date.now() - downSince }, 'database available again');
    downSince = undefined;
    clearInterval(probe);
    probe = undefined;
  };
  const declare = (reason: string) => {
    if (downSince !== undefined || stopped) return;
    downSince = Date.now();
    log.error({ reason }, 'database unavailable: requests answer 503 service_unavailable until it is back');
    probe = setInterval(() => {
      if (probing) return;
      probing = true;
      db.raw('select 1').then(recovered, () => undefined).finally(() => (probing = false));
    }, probeMs);
    probe.unref();
  };
  const report = (err: unknown): boolean => {
    const reason = databaseUnavailable(err);
    if (!reason) return false;
    if (downSince === undefined && !stopped && !confirming) {
      // The probe's own failure comes back here as a query error: `confirming` keeps it from starting another.
      confirming = true;
      void (async () => {
        let last: unknown = err;
        for (let i = 0; i < CONFIRM_PROBES; i++) {
          try {
            await db.raw('select 1');
            return;
          } catch (probeErr) {
            last = probeErr;
          }
        }
        declare(databaseUnavailable(last) ?? reason);
      })().finally(() => (confirming = false));
    }
    return true;
  };

  const onQueryError = (err: unknown) => void report(err);
  const onResponse = () => recovered();
  db.on('query-error', onQueryError);
  db.on('query-response', onResponse);
  const pool = (db.client as { pool?: { on?(event: string, fn: (...args: unknown[]) => void): void; removeListener?(event: string, fn: (...args: unknown[]) => void): void } }).pool;
  const onCreateFail = (_id: unknown, err: unknown) => void report(err);
  pool?.on?.('createFail', onCreateFail);

  return {
    get down() {
      return downSince !== undefined;
    },
    report,
    stop() {
      stopped = true;
      clearInterval(probe);
      db.removeListener('query-error', onQueryError);
      db.removeListener('query-response', onResponse);
      pool?.removeListener?.('createFail', onCreateFail);
    },
  };
}
