import { invalid } from '@tt/domain';

/*
 * A keyset position is the sort key parts of the last row of a page joined by '|' ("<value>|<id>",
 * "<rank>|<id>|<offset>"). Issued cursors carry it, so the format stays as it is; no part holds a '|' (ids,
 * numbers and days never do).
 */
const SEPARATOR = '|';

/** A tuple of `N` strings. */
type Parts<N extends number, P extends string[] = []> = P['length'] extends N ? P : Parts<N, [...P, string]>;

/** The position of a row from its parts (as a template string shows them). */
export const position = (...parts: Array<string | number | null>): string => parts.map(String).join(SEPARATOR);

/**
 * The `count` parts of a position from a client. Another number of parts, an empty part or parts `valid` refuses
 * is a 400 naming `cursor`: a forged position must not reach a query as a value its cast would fail on (a 500).
 */
export function parsePosition<N extends number>(after: string, count: N, valid: (parts: Parts<N>) => boolean = () => true): Parts<N> {
  const parts = after.split(SEPARATOR);
  if (parts.length !== count || parts.some((p) => p === '') || !valid(parts as Parts<N>)) {
    throw invalid('cursor', 'malformed cursor; pass nextCursor from the previous page');
  }
  return parts as Parts<N>;
}
