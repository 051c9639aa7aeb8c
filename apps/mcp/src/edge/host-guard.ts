import { errorLine, gateValue } from '../answer/gate.js';
import type { RequestHandler, Response } from 'express';
import { type AllowedOrigins, originAllowed } from './cors.js';

export type RpcId = string | number | null;

/** The id of a JSON-RPC request body, so that an error answers it (null for a batch, a notification or no body). */
export function rpcIdOf(body: unknown): RpcId {
  const id = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/**
 * Answers with a JSON-RPC error object, as MCP clients expect on the MCP endpoint, carrying the request's id when the
 * body was read (a 2026-07-28 client matches errors to requests by id).
 */
export function sendRpcError(res: Response, status: number, message: string, code = -32000, id: RpcId = null, data?: unknown): void {
  // Errors the edge answers itself leave through the answer gate too: one line, neutralised (answer/gate.ts).
  res.status(status).json({ jsonrpc: '2.0', id, error: { code, message: errorLine(message), ...(data === undefined ? {} : { data: gateValue(data) }) } });
}

function hostnameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * DNS-rebinding protection: the Host header, and the Origin header when sent, must name an allowed host
 * (any port), or the Origin be one of `origins` (MCP_ALLOWED_ORIGINS, browser-based clients). A page on another site
 * that rebinds its name to this address is refused with 403. `checkOrigin: false` checks the Host only (endpoints
 * browsers call cross-origin on purpose).
 */
export function hostGuard(allowed: readonly string[], opts: { checkOrigin?: boolean; origins?: AllowedOrigins } = {}): RequestHandler {
  const origins = opts.origins ?? new Set<string>();
  const ok = new Set(allowed.map((h) => h.toLowerCase()));
  return (req, res, next) => {
    const host = req.headers.host;
    const hostName = host ? hostnameOf(`http://${host}`) : undefined;
    if (!hostName || !ok.has(hostName)) {
      return sendRpcError(res, 403, `Host ${host ?? '(none)'} is not allowed; set MCP_ALLOWED_HOSTS to accept it`);
    }
    const origin = req.headers.origin;
    if (origin !== undefined && opts.checkOrigin !== false) {
      const originName = hostnameOf(origin);
      if ((!originName || !ok.has(originName)) && !originAllowed(origin, origins)) {
        return sendRpcError(res, 403, `Origin ${origin} is not allowed; set MCP_ALLOWED_ORIGINS (browser clients) or MCP_ALLOWED_HOSTS to accept it`);
      }
    }
    next();
  };
}
