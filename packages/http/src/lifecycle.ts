import type { Server } from 'node:http';
import type { Logger } from 'pino';

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
