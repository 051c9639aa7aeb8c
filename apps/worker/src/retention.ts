import { activity, type Deps } from '@tt/domain';

export interface Retention {
  /** Runs one pass now (tests, start-up); resolves to the entries deleted. */
  runOnce(): Promise<number>;
  stop(): void;
}

/**
 * The activity log's retention (ACTIVITY_RETENTION_DAYS): a pass at start and then every `everyMs` (an hour). Unset
 * keeps every entry. Every worker process runs it, and so does embedded mode (`npm start`, which runs the worker's
 * jobs in its one process): the deletes are idempotent and batched, so two of them only share the work.
 */
export function startRetention(
  days: number | undefined, deps: Deps, log: { info(o: object, msg: string): void; warn(o: object, msg: string): void }, everyMs = 3_600_000,
): Retention {
  let running: Promise<number> | undefined;
  const runOnce = (): Promise<number> => {
    if (days === undefined) return Promise.resolve(0);
    running ??= activity
      .pruneActivity(days, deps)
      .then((n) => {
        if (n) log.info({ deleted: n, days }, 'activity retention: old entries deleted');
        return n;
      })
      .catch((err: Error) => {
        log.warn({ err: err.message }, 'activity retention failed; next pass in an hour');
        return 0;
      })
      .finally(() => (running = undefined));
    return running;
  };
  if (days === undefined) return { runOnce, stop() {} };
  void runOnce();
  const timer = setInterval(() => void runOnce(), everyMs);
  timer.unref?.();
  return { runOnce, stop: () => clearInterval(timer) };
}
