import type { RequestHandler } from 'express';
import { assertJsonObject, assertShallow, DomainError } from '@tt/domain';
import { rpcIdOf, sendRpcError } from './host-guard.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Refuses a JSON-RPC message (or batch) holding a value nested deeper than MAX_JSON_DEPTH anywhere, or `arguments` of a
 * tools/call that are not an object: before the SDK or a tool walks it. A tool's arguments are checked for depth by
 * the tool itself (`validate`), so they come back as a tool error, `invalid_request`, like any other bad argument.
 */
export function assertEnvelope(body: unknown): void {
  for (const message of Array.isArray(body) ? body : [body]) {
    if (!isObject(message)) {
      assertShallow(message, 'message');
      continue;
    }
    for (const [field, value] of Object.entries(message)) {
      if (field !== 'params' || !isObject(value)) {
        assertShallow(value, field);
        continue;
      }
      for (const [param, inner] of Object.entries(value)) {
        if (param === 'arguments' && message.method === 'tools/call') assertJsonObject(inner, 'arguments');
        else assertShallow(inner, `params.${param}`);
      }
    }
  }
}

/** The envelope check as middleware, answering a JSON-RPC error (400, Invalid Request) naming the problem. */
export const envelopeGuard: RequestHandler = (req, res, next) => {
  try {
    assertEnvelope(req.body);
  } catch (e) {
    if (e instanceof DomainError) return sendRpcError(res, 400, e.message, e.message.startsWith('arguments:') ? -32602 : -32600, rpcIdOf(req.body));
    return next(e);
  }
  next();
};
