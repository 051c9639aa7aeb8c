import { createServer, IncomingMessage, ServerResponse, type Server, type ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

/**
 * Request and response constructors whose instances have Express's prototypes (`app.request`, `app.response`) from
 * birth. Express gives every request and response those prototypes with Object.setPrototypeOf; on objects that have
 * them already that call changes nothing. Changing the prototype of a live object does cost: V8 then keeps the
 * request's objects through young-generation collections, so every one was copied and promoted, and each scavenge
 * paused the process for milliseconds (measured at 100 req/s: 20-30 % of what a request allocates survived, against
 * under 1 % with these constructors, and pauses of 1 to 6 ms against 0.2 to 0.6 ms).
 *
 * Undefined when Node's constructors cannot be called as functions (a class in some future Node): Express then sets
 * the prototypes itself, as before.
 */
function expressMessages(app: Express): ServerOptions | undefined {
  const callable = (f: unknown) => typeof f === 'function' && !Function.prototype.toString.call(f).startsWith('class');
  if (!callable(IncomingMessage) || !callable(ServerResponse)) return undefined;
  function Request(this: IncomingMessage, socket: Socket): void {
    Reflect.apply(IncomingMessage, this, [socket]);
  }
  Request.prototype = app.request;
  function Response(this: ServerResponse, req: IncomingMessage, options?: unknown): void {
    Reflect.apply(ServerResponse, this, [req, options]);
  }
  Response.prototype = app.response;
  return { IncomingMessage: Request as unknown as typeof IncomingMessage, ServerResponse: Response as unknown as typeof ServerResponse };
}

/**
 * How long an idle keep-alive connection stays open. Node's default, 5 s, is shorter than the idle time of the
 * proxies in front of us (nginx's upstream keep-alive and most load balancers keep 60 s), and shorter than an agent's
 * pause between tool calls: a client or proxy that sends on a connection the server has just closed gets a reset,
 * and a POST is not retried (nginx answers 502; fetch throws ECONNRESET). 65 s outlasts those 60 s, so the proxy
 * always closes first.
 */
export const KEEP_ALIVE_MS = 65_000;

/**
 * Serves `app` on host:port (0: any free port), like `app.listen`; resolves once listening, rejects if it cannot.
 * Idle keep-alive connections stay open for KEEP_ALIVE_MS, and the headers' timeout is above that, as Node asks.
 */
export function listen(app: Express, port: number, host: string): Promise<Server> {
  const options = expressMessages(app);
  const server = options ? createServer(options, app) : createServer(app);
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
