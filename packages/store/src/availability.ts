import type { Knex } from 'knex';
import { onSlowStatement, outcomeUnknown, slowStatementMs } from './deadline.js';

/** Socket errors of a database that is stopped, restarting or out of reach. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);

/**
 * SQLSTATEs of a server that cannot serve now: class 08 (connection exception; PgBouncer answers 08P01 while its
 * server is down), 57P01-57P03 (shutting down, crashed, starting up), 53300 (too many connections) and 57014
 * (canceled: the statement timeout, a database too slow to answer in time).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300|57014)$/;

/**
 * What pg and Knex say when a connection ends, cannot start in time (pg: `timeout expired`, a server that accepts
 * the connection and then says nothing), or the pool has none to give.
 */
const MESSAGES = /Connection terminated|connection timeout|timeout expired|Connection ended unexpectedly|not queryable|Query read timeout|Timeout acquiring a connection/i;

/** A request's deadline passed, or too many requests wait for a connection (`deadline.ts`). */
const OWN_CODES = new Set(['TT_DEADLINE', 'TT_DB_BUSY']);

/**
 * Why an error means the database is unavailable (stopped, unreachable, restarting, overloaded) rather than a fault
 * of the request or the code; undefined when it does not. The answer is a short reason for logs.
 */
export function databaseUnavailable(err: unknown, depth = 0): string | undefined {
  if (!err || typeof err !== 'object' || depth > 4) return undefined;
  // A write whose outcome is unknown may have committed: never the 503 that says nothing was written.
  if (outcomeUnknown(err)) return undefined;
  const e = err as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  const message = typeof e.message === 'string' ? e.message.split('\n')[0]! : '';
  if (typeof e.code === 'string' && (SOCKET_CODES.has(e.code) || OWN_CODES.has(e.code))) return message || e.code;
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
  warn?(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface DatabaseWatch {
  /** True from a confirmed outage until a probe of the watch's own reaches the database again. */
  readonly down: boolean;
  /** True during a brownout: the database answers, but a probe's `select 1` takes longer than the slow threshold. */
  readonly slow: boolean;
  /** Feeds a failure seen elsewhere (a readiness check); true when it means the database is unavailable. */
  report(err: unknown): boolean;
  stop(): void;
}

/** The parts of Knex's PostgreSQL client a probe uses: a connection made like the pool's, but outside it. */
interface RawClient {
  acquireRawConnection(): Promise<{ query(q: { text: string; query_timeout: number }): Promise<unknown>; connection?: { stream?: { destroy(): void } } }>;
  destroyRawConnection(conn: unknown): Promise<void>;
}

/**
 * One `select 1` on a new connection of its own, made with the pool's settings (so its connect timeout) but outside
 * the pool: the answer is the database's, whatever the pool holds (connections the last server closed, attempts
 * started while it was down, every connection busy). `failure` is undefined when the database answered; `ms` is the
 * time the `select 1` itself took (the connect aside): the round trip a statement pays now.
 */
async function probeOnce(db: Knex, timeoutMs: number): Promise<{ failure: unknown; ms: number }> {
  const client = db.client as unknown as RawClient;
  let conn: Awaited<ReturnType<RawClient['acquireRawConnection']>> | undefined;
  try {
    conn = await client.acquireRawConnection();
    const started = Date.now();
    await conn.query({ text: 'select 1', query_timeout: timeoutMs });
    void client.destroyRawConnection(conn).catch(() => undefined);
    return { failure: undefined, ms: Date.now() - started };
  } catch (err) {
    // A connection whose answer did not come is cut rather than ended politely (that would wait on the network).
    conn?.connection?.stream?.destroy();
    if (conn) void client.destroyRawConnection(conn).catch(() => undefined);
    return { failure: err ?? new Error('probe failed'), ms: 0 };
  }
}

/**
 * Watches a PostgreSQL pool for outages and logs each one twice: when it starts (with the reason) and when it ends
 * (with its length), never once per request.
 *
 * The state changes only on a probe of the watch's own (`probeOnce`, a new connection outside the pool), never on a
 * request's outcome alone. A request's failure that says the database is unavailable starts a probe: the outage is
 * declared when that probe fails too. Otherwise the failure was a leftover of the pool (a connection the last server
 * closed without a word, a connection attempt started during the outage that failed after it) or the pool was
 * merely busy; the request still gets its 503 but no outage is logged. While down the watch probes every `probeMs`,
 * and at once when some statement succeeds, and the outage ends when a probe succeeds: a statement that an old
 * server answers while it shuts down does not end it. Requests themselves need nothing: the pool opens new
 * connections as soon as the server accepts them.
 *
 * Slow is not down. A statement slower than the slow threshold (DATABASE_SLOW_MS), or one abandoned at its request's
 * deadline, starts a probe too: two probes in a row that connect but whose `select 1` takes longer than the threshold
 * start a brownout, logged once (warn); the watch then probes every `probeMs` and logs its end once, after three quick probes
 * in a row. Requests are served meanwhile, each within its deadline or answered 503.
 */
export function watchDatabase(db: Knex, log: WatchLog, probeMs = 1000): DatabaseWatch {
  let downSince: number | undefined;
  let slowSince: number | undefined;
  let fastProbes = 0;
  let slowProbes = 0;
  let timer: NodeJS.Timeout | undefined;
  let probing = false;
  let stopped = false;
  const probeTimeoutMs = Math.max(1000, probeMs * 3);
  const slowMs = slowStatementMs(db) ?? 250;
  const warn = (obj: object, msg: string) => (log.warn ? log.warn(obj, msg) : log.info(obj, msg));
  // While down or slow the watch probes on a timer of its own; otherwise only when a statement fails or drags.
  const schedule = () => {
    if (downSince !== undefined || slowSince !== undefined || slowProbes > 0) {
      if (timer) return;
      timer = setInterval(() => probe(), probeMs);
      timer.unref();
    } else if (timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  const probe = (reason?: string) => {
    if (probing || stopped) return;
    probing = true;
    void probeOnce(db, probeTimeoutMs)
      .then(({ failure, ms }) => {
        if (stopped) return;
        if (failure === undefined) {
          if (downSince !== undefined) {
            log.info({ downMs: Date.now() - downSince }, 'database available again');
            downSince = undefined;
          }
          // A brownout starts with two slow probes in a row and ends after three quick ones (under half the
          // threshold), so a busy moment is not a brownout and a latency hovering around the threshold does not log
          // one every few seconds.
          if (ms > slowMs) {
            fastProbes = 0;
            if (slowSince === undefined && ++slowProbes >= 2) {
              slowSince = Date.now();
              warn({ selectOneMs: ms, slowMs }, 'database slow: statements are served late; requests past their deadline answer 503 service_unavailable');
            }
          } else {
            slowProbes = 0;
            if (slowSince !== undefined && ms <= slowMs / 2 && ++fastProbes >= 3) {
              log.info({ slowForMs: Date.now() - slowSince, selectOneMs: ms }, 'database no longer slow');
              slowSince = undefined;
              fastProbes = 0;
            }
          }
        } else if (downSince === undefined) {
          downSince = Date.now();
          // An outage supersedes a brownout: its end is logged as the outage's end.
          slowSince = undefined;
          fastProbes = 0;
          slowProbes = 0;
          log.error({ reason: databaseUnavailable(failure) ?? reason ?? String(failure) }, 'database unavailable: requests answer 503 service_unavailable until it is back');
        }
        schedule();
      })
      .finally(() => (probing = false));
  };
  const report = (err: unknown): boolean => {
    const reason = databaseUnavailable(err);
    if (!reason) return false;
    if (downSince === undefined) probe(reason);
    return true;
  };

  const onQueryError = (err: unknown) => void report(err);
  const onResponse = () => {
    if (downSince !== undefined) probe();
  };
  db.on('query-error', onQueryError);
  db.on('query-response', onResponse);
  const stopSlow = onSlowStatement(db, () => {
    if (downSince === undefined && slowSince === undefined) probe();
  });
  const pool = (db.client as { pool?: { on?(event: string, fn: (...args: unknown[]) => void): void; removeListener?(event: string, fn: (...args: unknown[]) => void): void } }).pool;
  const onCreateFail = (_id: unknown, err: unknown) => void report(err);
  pool?.on?.('createFail', onCreateFail);

  return {
    get down() {
      return downSince !== undefined;
    },
    get slow() {
      return slowSince !== undefined;
    },
    report,
    stop() {
      stopped = true;
      clearInterval(timer);
      stopSlow();
      db.removeListener('query-error', onQueryError);
      db.removeListener('query-response', onResponse);
      pool?.removeListener?.('createFail', onCreateFail);
    },
  };
}
