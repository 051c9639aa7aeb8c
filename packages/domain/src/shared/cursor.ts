import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalid } from './errors.js';
import type { CutPageResult } from './paging.js';

/*
 * A cursor is "<base64url position>.<tag>": the tag is a truncated HMAC of the position, so a cursor altered by hand
 * or damaged in transit is refused as a 400 before it reaches a query. The key is fixed (every replica must accept
 * the cursors of the others, and a cursor reveals nothing secret); the tag is an integrity check, and the position
 * is still checked structurally, so even a forged one cannot reach the database as anything but a plain value.
 */
const KEY = 'tt-cursor-v2';
const TAG_LENGTH = 16;
/** Store positions are ids, numbers, days, tree paths and the separators between them. */
const POSITION = /^[A-Za-z0-9_.:|/-]{1,300}$/;

const tagOf = (position: string): string => createHmac('sha256', KEY).update(position).digest('base64url').slice(0, TAG_LENGTH);

const malformed = () => invalid('cursor', 'malformed or altered cursor; pass nextCursor from the previous page unchanged');

/** Opaque cursor over a store position. */
export function encodeCursor(position: string | null): string | null {
  if (position === null) return null;
  return `${Buffer.from(position, 'utf8').toString('base64url')}.${tagOf(position)}`;
}

/** The store position of a cursor from a client; 400 naming `cursor` when it is not one this service issued. */
export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const dot = cursor.lastIndexOf('.');
  if (dot < 1 || !/^[A-Za-z0-9_-]+$/.test(cursor.slice(0, dot))) throw malformed();
  const position = Buffer.from(cursor.slice(0, dot), 'base64url').toString('utf8');
  const given = Buffer.from(cursor.slice(dot + 1));
  const expected = Buffer.from(tagOf(position));
  if (given.length !== expected.length || !timingSafeEqual(given, expected) || !POSITION.test(position)) throw malformed();
  return position;
}

/**
 * A page that also gives the cursor after any of its first n items (null when nothing follows them). A reader that
 * shows fewer items than it asked for (an agent's answer has a budget) pages on from the last one it showed, without
 * reading the page again.
 */
export type CutPage<P> = P & { cursorAfter(n: number): string | null };

/** `page` (presented from the store's `from`) with `cursorAfter`. */
export const cutPage = <P>(page: P, from: CutPageResult<unknown>): CutPage<P> => ({ ...page, cursorAfter: (n: number) => encodeCursor(from.after(n)) });

/** The page as REST answers it: without `cursorAfter`. */
export const uncut = <P>({ cursorAfter: _, ...page }: CutPage<P>): P => page as P;
