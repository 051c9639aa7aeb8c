/** A page request: rows after `after` (an opaque position), up to `limit`. */
export interface PageRequest {
  limit: number;
  after?: string | undefined;
}

export interface PageResult<T> {
  rows: T[];
  /** Position after the last row, when more rows may follow. */
  next: string | null;
  total: number;
}
