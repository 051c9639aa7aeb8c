import type { Knex } from 'knex';
import type { IdempotencyRecord, IdempotencyRepo, IdempotencyScope } from '@tt/domain';
import { activeDeadline, withDeadline, withoutDeadline } from '../deadline.js';
import { num, numOrNull } from '../util.js';

/** How long releasing a claim may take, outside the request's deadline. */
const RELEASE_MS = 3000;

type Row = Record<string, any>;

const TABLE = 'idempotency_keys';

const where = (scope: IdempotencyScope, key: string) => ({ key_id: scope.keyId, surface: scope.surface, idem_key: key });

const claimRow = (c: Omit<IdempotencyRecord, 'response'>) => ({
  fingerprint: c.fingerprint, token: c.token, created_at: c.createdAt, locked_until: c.lockedUntil,
});

function toRecord(r: Row): IdempotencyRecord {
  const headers = typeof r.headers === 'string' ? JSON.parse(r.headers) : r.headers;
  return {
    fingerprint: r.fingerprint,
    token: r.token,
    createdAt: num(r.created_at),
    lockedUntil: numOrNull(r.locked_until),
    response: r.status === null || r.status === undefined ? null : { status: Number(r.status), headers: headers ?? {}, body: r.body ?? '' },
  };
}

/** Idempotency keys; every write that ends or replaces a claim is conditional on the claim's token. */
export function idempotencyRepo(db: Knex): IdempotencyRepo {
  return {
    async claim(scope, key, c) {
      const rows = await db(TABLE)
        .insert({ ...where(scope, key), ...claimRow(c), status: null, headers: null, body: null })
        .onConflict(['key_id', 'surface', 'idem_key'])
        .ignore()
        .returning('token');
      return rows.length === 1;
    },
    async get(scope, key) {
      const row: Row | undefined = await db(TABLE).where(where(scope, key)).first();
      return row ? toRecord(row) : undefined;
    },
    async takeOver(scope, key, token, c) {
      const rows = await db(TABLE)
        .where({ ...where(scope, key), token })
        .update({ ...claimRow(c), status: null, headers: null, body: null })
        .returning('token');
      return rows.length === 1;
    },
    async complete(scope, key, token, response) {
      const rows = await db(TABLE)
        .where({ ...where(scope, key), token })
        .update({ status: response.status, headers: JSON.stringify(response.headers), body: response.body, locked_until: null })
        .returning('token');
      return rows.length === 1;
    },
    async release(scope, key, token) {
      // Often released because the request's deadline passed: the delete runs outside it, with a few seconds of its
      // own, and a request already past its deadline does not wait for it (its 503 goes out now). A claim that cannot
      // be released stays locked: a retry meanwhile hears "in progress", never an answer the request did not give.
      // Only a claim without an answer: a COMMIT whose reply came too late may have stored the answer with its write,
      // and that answer must stay for the retry to replay (deleting it would run the write a second time).
      const done = withoutDeadline(() => withDeadline(RELEASE_MS, async () => (await db(TABLE).where({ ...where(scope, key), token, status: null }).delete().returning('token')).length === 1));
      const d = activeDeadline();
      if (d && d.at <= Date.now()) {
        done.catch(() => undefined);
        return false;
      }
      return done;
    },
    async prune(before) {
      // Counted by RETURNING: PGlite does not report the affected row count the way pg does.
      return (await db(TABLE).where('created_at', '<', before).delete().returning('created_at')).length;
    },
  };
}
