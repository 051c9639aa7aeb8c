import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { idempotency, invalid, IDEMPOTENCY_KEY_MAX, parseIdempotencyKey, requestFingerprint, z, type Deps, type StoredResponse } from '@tt/domain';

/** Headers of the first answer that a replay repeats besides status and body. */
const REPLAYED_HEADERS = ['content-type', 'location', 'etag'];
/** Each process deletes expired keys at most this often, on the next keyed request (expired rows count as absent anyway). */
const PRUNE_EVERY_MS = 10 * 60_000;

/**
 * `Idempotency-Key` on every POST: a thin adapter over the idempotency use case (`idempotency.once`). Mounted after
 * authentication, so a key belongs to the API key. A first request runs in a transaction (its routes get deps bound to
 * it, `req.deps`) with its answer held back until the answer is stored in that transaction and committed; only then is it sent (a retry arriving right
 * after it sees the answer, and an answer the client saw is never of a write that did not commit). A replay sends the
 * stored answer with `Idempotent-Replayed: true`.
 */
export function idempotencyKeys(deps: Deps): RequestHandler {
  let nextPrune = 0;
  return async (req, res, next) => {
    if (req.method !== 'POST') return next();
    try {
      const values = req.headersDistinct['idempotency-key'];
      if (!values) return next();
      if (values.length > 1) throw invalid('Idempotency-Key', 'send the header once');
      const key = parseIdempotencyKey(values[0]!);
      // Authentication runs first; without a key there is nothing to scope by (the route then answers 401).
      if (!req.actor) return next();
      const scope = { keyId: req.actor.key.id, surface: 'rest' as const };
      // The path with its query and the parsed body, key order aside: "the same request".
      const fingerprint = requestFingerprint(['POST', req.originalUrl, req.body ?? null]);
      if (deps.now() >= nextPrune) {
        nextPrune = deps.now() + PRUNE_EVERY_MS;
        idempotency.prune(deps).catch((err: Error) => req.log?.warn({ err: err.message }, 'pruning idempotency keys failed'));
      }
      const end = res.end.bind(res) as (...args: unknown[]) => Response;
      let outcome: idempotency.Outcome<unknown[]>;
      try {
        outcome = await idempotency.once(scope, key, fingerprint, deps, (scoped) => runHeld(req, res, next, scoped));
      } catch (e) {
        // Nothing was sent and nothing committed: the request's own answer gives way to the error.
        res.end = end as Response['end'];
        for (const name of REPLAYED_HEADERS) res.removeHeader(name);
        throw e;
      }
      if (outcome.kind === 'replay') return replay(res, outcome.response);
      end(...outcome.value);
      // The jobs the request wrote committed just now: wake the relay (the use case's own wake came before the commit).
      deps.jobs.notify();
    } catch (e) {
      next(e);
    }
  };
}

function replay(res: Response, answer: StoredResponse): void {
  res.status(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.setHeader('Idempotent-Replayed', 'true');
  res.end(answer.body);
}

/**
 * Runs the rest of the request (`next`) with `deps` bound to its transaction, and holds its answer back: `res.send` and `res.json` end in `res.end` with the
 * whole body, so wrapping it sees status, headers and body. Resolves with `res.end`'s arguments, to be sent by the
 * caller, and the answer to keep (null: not kept). An answer written in pieces (`res.write`) is not kept.
 */
function runHeld(req: Request, res: Response, next: NextFunction, deps: Deps): Promise<{ value: unknown[]; answer: StoredResponse | null }> {
  return new Promise((resolve) => {
    // The routes run the request's use cases with these deps: its store is the transaction the answer commits in.
    req.deps = deps;
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    let streamed = false;
    res.write = ((...args: unknown[]) => {
      streamed = true;
      return write(...args);
    }) as Response['write'];
    res.end = ((...args: unknown[]) => {
      const body = typeof args[0] === 'string' ? args[0] : args[0] instanceof Uint8Array ? Buffer.from(args[0]).toString('utf8') : '';
      const status = res.statusCode;
      const answer = !streamed && idempotency.remembers(status) ? { status, headers: replayedHeaders(res), body } : null;
      resolve({ value: args, answer });
      return res;
    }) as Response['end'];
    next();
  });
}

function replayedHeaders(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = res.getHeader(name);
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

/** The optional request header, for the OpenAPI description of every POST. */
export const IdempotencyKeyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(IDEMPOTENCY_KEY_MAX)
    .optional()
    .openapi({
      description:
        'Makes the POST safe to retry: the same key with the same body within 24 hours replays the first answer (status and body, ' +
        'header `Idempotent-Replayed: true`) and does nothing again. 1 to 255 printable ASCII characters, e.g. a UUID; scoped to the API key. ' +
        '5xx and 400 answers are not kept, so a retry runs again.',
      example: '8e03978e-40d5-43e8-bc93-6894a57f9324',
    }),
});

/** Adds the idempotency outcomes to the OpenAPI responses of a POST. */
export function describeIdempotency(responses: Record<string, { description: string; headers?: Record<string, unknown> }>): void {
  const more: Record<string, string> = {
    '409': 'idempotency_conflict: a request with the same Idempotency-Key is still in progress',
    '422': 'idempotency_key_reused: the Idempotency-Key was used for a different request (path or body)',
  };
  for (const [code, text] of Object.entries(more)) if (responses[code]) responses[code].description += `; ${text}`;
  for (const [code, r] of Object.entries(responses)) {
    if (code.startsWith('2')) {
      r.headers = { ...r.headers, 'Idempotent-Replayed': { description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } } };
    }
  }
}
