/**
 * Group commit for small independent writes that arrive together: each caller hands in its rows and waits; the rows
 * of callers who arrive while a statement is running go together in the next statement. One statement (outside a
 * transaction: one commit, one WAL flush) then serves many callers, and a lone caller waits for nothing but its own
 * statement. Used by the notification jobs, which the worker runs many at a time and whose inserts are otherwise
 * one flush each.
 *
 * A failed statement is retried once per caller, alone, so one caller's bad row fails only that caller.
 */
export interface GroupCommit<R> {
  /** Resolves with how many of these rows the statement reported written, once they are committed. */
  write(rows: R[]): Promise<number>;
}

interface Waiting<R> {
  rows: R[];
  resolve: (written: number) => void;
  reject: (err: unknown) => void;
}

/**
 * `run` writes the rows of one statement and returns, per row in order, whether it was written. At most `maxRows`
 * rows go in one statement (a caller's rows are never split); statements run one at a time.
 */
export function groupCommit<R>(run: (rows: R[]) => Promise<boolean[]>, maxRows = 500): GroupCommit<R> {
  const queue: Array<Waiting<R>> = [];
  let running = false;

  async function flush(): Promise<void> {
    running = true;
    while (queue.length) {
      const batch: Array<Waiting<R>> = [];
      let size = 0;
      while (queue.length && (batch.length === 0 || size + queue[0]!.rows.length <= maxRows)) {
        const next = queue.shift()!;
        batch.push(next);
        size += next.rows.length;
      }
      await settle(batch);
    }
    running = false;
  }

  async function settle(batch: Array<Waiting<R>>): Promise<void> {
    try {
      const written = await run(batch.flatMap((w) => w.rows));
      let at = 0;
      for (const w of batch) {
        w.resolve(written.slice(at, at + w.rows.length).filter(Boolean).length);
        at += w.rows.length;
      }
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      // Which caller's rows failed is not known: each goes again on its own.
      for (const w of batch) await settle([w]);
    }
  }

  return {
    write(rows) {
      if (!rows.length) return Promise.resolve(0);
      return new Promise<number>((resolve, reject) => {
        queue.push({ rows, resolve, reject });
        if (!running) void flush();
      });
    },
  };
}
