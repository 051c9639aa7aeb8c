import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';
import { JsonAnswer } from './dispatch.js';
import { rpcIdOf, sendRpcError } from './host-guard.js';

/** The SDK's web-standard handler of the 2026-07-28 side (`createMcpHandler`). */
export interface WebHandler {
  fetch(request: globalThis.Request, o: { authInfo?: AuthInfo; parsedBody?: unknown }): Promise<globalThis.Response>;
}

/**
 * One 2026-07-28 request that is not a listen stream, on the Express request and response: the SDK's handler gets the
 * parsed body and a view of the request (NodeRequestView, below), and its answer is written back.
 *
 * It does what the SDK's `toNodeHandler` does, less one thing: the request carries no abort signal. A Request
 * made with a signal is registered (on Node.js 20) in a finalization registry whose held value keeps the signal and
 * its listeners until the Request is collected by a full collection, so every call's controller, listeners and the
 * async context they hold outlived the call and were promoted to the old generation. A call answered in JSON does not
 * need the signal: it ends when its handler answers, and a client gone mid-call only loses the answer (as on the
 * 2025 side). A listen stream, which lives until the client goes, keeps the SDK's adapter and its signal.
 *
 * Nor does the request carry the body: the handler classifies and serves the parsed body it is given
 * (`parsedBody`) and reads the Request only for its method and headers (its body is read on the 2025 side alone,
 * which this handler rejects). Writing the body out again as JSON, counting its bytes and wrapping it in a stream
 * was work for nothing on every call.
 */
export async function serveWebExchange(
  handler: WebHandler, req: Request, res: Response, body: unknown, authInfo: AuthInfo, onerror: (err: Error) => void,
): Promise<void> {
  let response: globalThis.Response | JsonAnswer;
  try {
    response = await handler.fetch(webRequest(req), { authInfo, parsedBody: body });
  } catch (err) {
    // The handler answers every protocol error itself; a throw is our fault, answered as the SDK's adapter does.
    onerror(err instanceof Error ? err : new Error(String(err)));
    if (!res.headersSent && !res.destroyed) sendRpcError(res, 500, 'Internal server error', -32603, rpcIdOf(body));
    return;
  }
  if (response instanceof JsonAnswer) {
    // A result settled without a fetch Response (edge/dispatch.ts): written once, as Response.json would have.
    if (res.destroyed) return;
    const text = JSON.stringify(response.message);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
    return;
  }
  if (res.destroyed) {
    await response.body?.cancel().catch(() => undefined);
    return;
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  // An answer is a JSON body or a short event stream that ends with the answer: read whole, written once.
  res.end(Buffer.from(await response.arrayBuffer()));
}

/**
 * What the SDK's handler reads of a Request on the 2026-07-28 side once the body is given parsed: the method, the
 * URL and a few headers by name (Content-Type, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-* of a tool
 * that declares them), and the signal (none here, see serveWebExchange). A fetch Request made for that cost more than
 * the rest of the exchange's protocol work: undici validates every header, builds its header list, and makes an
 * AbortController for every Request, whose signal (on Node.js 20 a transferable object with a weak native handle)
 * outlives the call and is promoted with what it holds. This view reads the Node request's headers in place.
 */
class NodeRequestView {
  readonly signal = undefined;
  readonly headers: { get(name: string): string | null; has(name: string): boolean };
  constructor(private readonly req: Request) {
    const raw = req.headers;
    const get = (name: string): string | null => {
      const value = raw[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    };
    this.headers = { get, has: (name) => get(name) !== null };
  }

  get method(): string {
    return this.req.method;
  }

  get url(): string {
    return `http://${this.req.headers.host ?? 'localhost'}${this.req.url}`;
  }
}

/** The request as the SDK's handler sees it (see NodeRequestView): typed as a Request, holding what it reads. */
const webRequest = (req: Request): globalThis.Request => new NodeRequestView(req) as unknown as globalThis.Request;
