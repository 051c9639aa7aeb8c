import { errorLine } from '../answer/gate.js';
import type { RequestHandler } from 'express';
import { assertJsonObject, assertShallow, DomainError } from '@tt/domain';
import { rpcIdOf, sendRpcError } from './host-guard.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Refuses a JSON-RPC message (or batch) holding a value nested deeper than MAX_JSON_DEPTH anywhere, or `arguments` of a
 * tools/call that are not an object: before the SDK or a tool walks it. A tool's arguments too deep are a tool error,
 * `invalid_request`, like any other bad argument (see envelopeGuard).
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

/** A tools/call whose arguments are nested too deep: the tool error's text, or undefined. */
function tooDeepArguments(body: unknown): string | undefined {
  if (!isObject(body) || body.method !== 'tools/call' || !isObject(body.params)) return undefined;
  try {
    assertShallow(body.params.arguments, 'arguments');
    return undefined;
  } catch (e) {
    if (e instanceof DomainError) return `${e.code}: ${e.message}`;
    throw e;
  }
}

/**
 * After authentication: a tools/call whose arguments are too deep is answered as the tool error the tool itself would
 * give. The SDK's request validation walks the arguments recursively and would fail on them with a generic internal
 * error.
 */
export const deepArgumentsGuard: RequestHandler = (req, res, next) => {
  const deep = tooDeepArguments(req.body);
  if (deep === undefined) return next();
  const body = req.body as { params: { _meta?: unknown } };
  const modern = isObject(body.params._meta) && 'io.modelcontextprotocol/protocolVersion' in body.params._meta;
  const result = { content: [{ type: 'text', text: errorLine(deep) }], isError: true, ...(modern ? { resultType: 'complete' } : {}) };
  res.json({ jsonrpc: '2.0', id: rpcIdOf(req.body), result });
};

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
