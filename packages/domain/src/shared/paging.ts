/** A page request: rows after `after` (an opaque position), up to `limit`. */
export interface PageRequest {
  limit: number;
  after?: string | undefined;
  /**
   * Count the matches only up to this many (a list over a log that grows without bound, whose full count would cost
   * more than the page); unset counts them all.
   */
  countAtMost?: number | undefined;
}

export interface PageResult<T> {
  rows: T[];
  /** Position after the last row, when more rows may follow. */
  next: string | null;
  total: number;
  /** True when more than `countAtMost` rows match: `total` is then that cap, a lower bound. */
  totalCapped?: boolean;
}

/**
 * A page that also names the position after any of its first rows: `after(n)` for n from 1 to rows.length (at
 * rows.length it is `next`). A reader with room for fewer rows than it asked for (an agent's answer budget) keeps
 * the first n and goes on from `after(n)`, without reading the page again.
 */
export type CutPageResult<T> = PageResult<T> & { after(n: number): string | null };
