import { type Deps, DomainError } from '../shared/index.js';
import type { IdempotencyRecord, IdempotencyScope, StoredResponse } from './rules.js';

/** A key is remembered this long (Stripe and the draft's example: 24 hours); older rows count as absent. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/**
 * How long a first request may run before its claim counts as abandoned (its process died): longer than any request
 * takes, short enough that a crash does not block the key for long. A request that fails with 5xx releases at once.
 */
export const IDEMPOTENCY_LOCK_MS = 5 * 60_000;

export type Start =
  /** The key is ours: run the request (`once` does, storing the answer with the token). */
  | { kind: 'run'; token: string }
  /** The key was answered before: send this answer again and do nothing. */
  | { kind: 'replay'; response: StoredResponse };

/**
 * Claims the key for this request, or decides that it is a replay. The claim is one INSERT ... ON CONFLICT DO NOTHING,
 * so of two requests racing with one key exactly one runs; the other sees the row: the same fingerprint still running
 * is 409 idempotency_conflict, answered is a replay, another fingerprint is 422 idempotency_key_reused. An expired or
 * abandoned row is taken over (compare-and-set on its token). `field` names the key in messages.
 */
export async function start(
  scope: IdempotencyScope,
  key: string,
  fingerprint: string,
  deps: Deps,
  field = 'Idempotency-Key',
): Promise<Start> {
  const repo = deps.store.idempotency;
  // A row may vanish (released) or change (taken over) between our steps; a few rounds settle it.
  for (let round = 0; round < 5; round++) {
    const now = deps.now();
    const claim = { fingerprint, token: deps.newId('idem'), createdAt: now, lockedUntil: now + IDEMPOTENCY_LOCK_MS };
    if (await repo.claim(scope, key, claim)) return { kind: 'run', token: claim.token };
    const row = await repo.get(scope, key);
    if (!row) continue;
    if (row.createdAt <= now - IDEMPOTENCY_TTL_MS) {
      if (await repo.takeOver(scope, key, row.token, claim)) return { kind: 'run', token: claim.token };
      continue;
    }
    if (row.fingerprint !== fingerprint) {
      throw new DomainError(
        'idempotency_key_reused',
        `${field}: this key was already used for a different request (another path, body or arguments); use a new key for a new request`,
      );
    }
    if (row.response) return { kind: 'replay', response: row.response };
    if (abandoned(row, now)) {
      if (await repo.takeOver(scope, key, row.token, claim)) return { kind: 'run', token: claim.token };
      continue;
    }
    throw new DomainError('idempotency_conflict', `${field}: a request with this key is still in progress; retry once it has finished`);
  }
  throw new DomainError('idempotency_conflict', `${field}: this key is changing hands; retry in a moment`);
}

const abandoned = (row: IdempotencyRecord, now: number): boolean => row.lockedUntil !== null && row.lockedUntil <= now;

/** What `once` did: replayed a kept answer, or ran the request (its value, and whether its answer was kept). */
export type Outcome<T> = { kind: 'replay'; response: StoredResponse } | { kind: 'ran'; value: T; kept: boolean };

/** Rolls back a run whose answer is not kept (a failure, or a refusal that must not be replayed). */
class NotKept<T> extends Error {
  constructor(readonly value: T) {
    super('answer not kept');
  }
}

/**
 * Runs a request once per key: claims the key (`start`), then runs `execute` and stores its answer in one transaction
 * with every write the request makes: `execute` gets deps whose store is that transaction, and runs the request's use
 * cases with them. A crash before the commit leaves neither the write nor the answer, so the retry runs once (after
 * the claim lapses); after the commit both are there, so the retry replays. An answer that is not kept (null: a 5xx,
 * a 400, a failed tool call) rolls the transaction back and releases the key, so a failed request leaves nothing
 * behind; a claim lost meanwhile (taken over after its lock lapsed) rolls back too. The caller sends the answer only
 * after this resolves, and wakes the relay then (the jobs committed with it).
 */
export async function once<T>(
  scope: IdempotencyScope,
  key: string,
  fingerprint: string,
  deps: Deps,
  execute: (deps: Deps) => Promise<{ value: T; answer: StoredResponse | null }>,
  field = 'Idempotency-Key',
): Promise<Outcome<T>> {
  const started = await start(scope, key, fingerprint, deps, field);
  if (started.kind === 'replay') return started;
  try {
    const value = await deps.store.transaction(async (store) => {
      const { value, answer } = await execute({ ...deps, store });
      if (answer === null) throw new NotKept(value);
      if (!(await store.idempotency.complete(scope, key, started.token, answer))) {
        throw new DomainError('idempotency_conflict', `${field}: this key was taken over by a retry while the request ran; retry to see its answer`);
      }
      return value;
    });
    return { kind: 'ran', value, kept: true };
  } catch (e) {
    await deps.store.idempotency.release(scope, key, started.token).catch(() => false);
    if (e instanceof NotKept) return { kind: 'ran', value: e.value as T, kept: false };
    throw e;
  }
}

/**
 * Which answers are remembered. 5xx are not, so the client can retry (the failed request wrote nothing). Like Stripe,
 * neither is a 400 (the request failed validation and never ran: the client may fix the body and retry with the
 * same key) nor a 429 (refused before running). Every other answer, success or refusal, is replayed as it was.
 */
export function remembers(status: number): boolean {
  return status < 500 && status !== 400 && status !== 429;
}

/** Deletes keys older than the 24 hours they are kept; returns how many. */
export async function prune(deps: Deps): Promise<number> {
  return deps.store.idempotency.prune(deps.now() - IDEMPOTENCY_TTL_MS);
}
