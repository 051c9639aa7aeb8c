import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { ConfigError } from './config.js';

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

/** Stops accepting connections, lets in-flight requests finish, then closes idle keep-alive sockets. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeIdleConnections();
  });
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
