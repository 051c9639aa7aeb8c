import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { ConfigError } from './config.js';
import type { Drain } from './readiness.js';

/**
 * Runs a process's start-up; a failure (a bad variable, an unreachable database) ends the process with exit code 1
 * and one line per problem on stderr instead of a stack trace. LOG_LEVEL=debug or trace adds the stack.
 */
export async function startOrExit<T>(name: string, start: () => Promise<T> | T): Promise<T> {
  try {
    return await start();
  } catch (e) {
    const lines =
      e instanceof ConfigError
        ? e.problems.map((p) => `${name}: bad configuration: ${p}`)
        : [`${name}: could not start: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`];
    if (/^(debug|trace)$/.test(process.env.LOG_LEVEL ?? '') && e instanceof Error && e.stack) lines.push(e.stack);
    process.stderr.write(`${lines.join('\n')}\n`);
    process.exit(1);
  }
}

/**
 * Stops accepting connections, lets in-flight requests finish, and closes keep-alive sockets as they fall idle.
 * Requests still running after `inFlightMs` have their connections cut, so a hung request cannot hold the process
 * past its grace period.
 */
export function closeServer(server: Server, inFlightMs = IN_FLIGHT_MS): Promise<void> {
  return new Promise((resolve, reject) => {
    // A keep-alive socket busy with a request when the listener closes falls idle once it is answered: close it then.
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    const cut = setTimeout(() => server.closeAllConnections(), inFlightMs);
    idle.unref();
    cut.unref();
    server.close((err) => {
      clearInterval(idle);
      clearTimeout(cut);
      if (err) reject(err);
      else resolve();
    });
    server.closeIdleConnections();
  });
}

/** How long requests in flight when the listener closes may take before their connections are cut. */
export const IN_FLIGHT_MS = 10_000;

/** Time a server's shutdown may take after its drain delay (in-flight requests, then the runtime); see onShutdown. */
export const SHUTDOWN_AFTER_DRAIN_MS = 20_000;

/**
 * A graceful stop of a server behind a load balancer: it is marked draining (`/ready` answers 503 `draining`, and
 * every response from now on carries `Connection: close`, so clients and proxies open their next connection
 * elsewhere), keeps serving for `drainMs` while the balancers notice, then closes the listener, finishes the
 * requests in flight and closes the keep-alive connections.
 */
export async function drainServer(server: Server, drain: Drain, drainMs: number): Promise<void> {
  drain.begin();
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('connection', 'close');
  });
  if (drainMs > 0) await new Promise((resolve) => setTimeout(resolve, drainMs));
  await closeServer(server);
}

/** Runs `stop` on SIGTERM/SIGINT once, with a force-quit timer. */
export function onShutdown(logger: Logger, stop: () => Promise<void>, forceAfterMs = 15_000): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('forced exit after shutdown timeout');
      process.exit(1);
    }, forceAfterMs);
    timer.unref();
    stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => handler('SIGTERM'));
  process.on('SIGINT', () => handler('SIGINT'));
}
