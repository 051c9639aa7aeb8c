import { TaskTrackerError } from './errors.js';
import type { RequestOptions } from './http.js';

/** An object as fetched, with its ETag: its version, which every change to the object replaces. */
export interface Tagged<T> {
  data: T;
  /** The strong ETag, e.g. `"7"`; pass it as `ifMatch` to change the object only if nobody changed it since. */
  etag: string;
}

/** Options of a write that can be made conditional on the object's version. */
export interface ConditionalOptions extends RequestOptions {
  /**
   * Sent as If-Match: the write happens only if the object still has this ETag (from `getWithEtag`); otherwise the call
   * fails with ApiError 412 `precondition_failed` and nothing changes. Omitted = the write is unconditional.
   */
  ifMatch?: string;
}

/** The request options of a conditional write, with its If-Match header. */
export function withIfMatch(opts: ConditionalOptions | undefined): RequestOptions | undefined {
  if (opts?.ifMatch === undefined) return opts;
  const { ifMatch, ...rest } = opts;
  return { ...rest, headers: { ...rest.headers, 'if-match': ifMatch } };
}

/** The object of an answer with the answer's ETag; a server that sends none cannot serve conditional writes. */
export function tagged<T>(answer: { body: { data: T }; etag: string | null }, what: string): Tagged<T> {
  if (answer.etag === null) throw new TaskTrackerError(`${what}: the answer carries no ETag`);
  return { data: answer.body.data, etag: answer.etag };
}
