import type { Redis } from 'ioredis';
import type { Change, ChangeFeed } from '@tt/domain';
import type { Log } from './queue.js';

/**
 * The change feed's adapters. Across processes it is Redis pub/sub rather than PostgreSQL LISTEN/NOTIFY: LISTEN needs
 * a session of its own, which a transaction-pooling PgBouncer does not give, while Redis is already required by every
 * production process (queue, rate limit) and a PUBLISH costs one round trip after the commit. Delivery is at most
 * once: while Redis is down the notes reach only this process's watchers (they can re-read on reconnecting).
 */
export interface ChangeFeedHandle extends ChangeFeed {
  close(): Promise<void>;
}

/** An in-process feed (embedded mode, tests): listeners hear every publish of this process, synchronously. */
export function createLocalChangeFeed(log?: Log): ChangeFeedHandle {
  const listeners = new Set<(c: Change) => void>();
  const deliver = (changes: readonly Change[]) => {
    for (const change of changes) {
      for (const listener of listeners) {
        try {
          listener(change);
        } catch (err) {
          log?.warn({ err: (err as Error).message }, 'change listener failed');
        }
      }
    }
  };
  return {
    publish: deliver,
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    async close() {
      listeners.clear();
    },
  };
}

export interface RedisChangeFeedOptions {
  /** The process's Redis connection, used to publish. */
  redis: Redis;
  /** Key prefix of the deployment (as the queue's), so two deployments on one Redis do not hear each other. */
  prefix: string;
  log: Log;
}

/**
 * A feed over Redis pub/sub: every process publishes on `<prefix>:changes`; a process with listeners holds one
 * subscriber connection (opened with its first listener) and hands what arrives, its own publishes included, to them.
 * The notes of the commits one turn of the event loop handles go out together, as one PUBLISH once that turn's I/O
 * is done (a setImmediate: no timer, so no wait). A PUBLISH a commit was a write to Redis and a reply per write
 * request; in the matrix's creates and PATCHes a PUBLISH now carries about 2 commits' notes (docs/performance.md).
 */
export function createRedisChangeFeed(o: RedisChangeFeedOptions): ChangeFeedHandle {
  const channel = `${o.prefix}:changes`;
  const local = createLocalChangeFeed(o.log);
  let subscriber: Redis | undefined;
  let failures = 0;
  const listen = () => {
    if (subscriber) return;
    // Unlike the shared connection, this one queues and reconnects on its own: it is idle but for the messages.
    subscriber = o.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null, lazyConnect: false });
    subscriber.on('error', (err) => o.log.debug({ err: err.message }, 'change feed subscriber error'));
    subscriber.on('message', (_ch: string, message: string) => {
      try {
        local.publish(JSON.parse(message) as Change[]);
      } catch (err) {
        o.log.warn({ err: (err as Error).message }, 'unreadable change feed message');
      }
    });
    subscriber.subscribe(channel).catch((err: Error) => o.log.warn({ err: err.message }, 'change feed subscribe failed'));
  };
  let pending: Change[] = [];
  let flushing: NodeJS.Immediate | undefined;
  const flush = () => {
    flushing = undefined;
    const changes = pending;
    pending = [];
    if (!changes.length) return;
    o.redis.publish(channel, JSON.stringify(changes)).then(
      () => {
        if (failures) o.log.info({ after: failures }, 'change feed publishing again');
        failures = 0;
      },
      (err: Error) => {
        // Logged once per outage; this process's own watchers still hear it.
        if (failures++ === 0) o.log.warn({ err: err.message }, 'change feed publish failed; only this process hears changes until Redis is back');
        local.publish(changes);
      },
    );
  };
  return {
    publish(changes) {
      if (!changes.length) return;
      pending.push(...changes);
      flushing ??= setImmediate(flush);
    },
    subscribe(listener) {
      listen();
      return local.subscribe(listener);
    },
    async close() {
      // What this turn noted still goes out: the caller closes Redis after the feed.
      if (flushing) clearImmediate(flushing);
      flush();
      await local.close();
      if (subscriber) {
        subscriber.disconnect();
        subscriber = undefined;
      }
    },
  };
}
