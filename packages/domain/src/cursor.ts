import { invalid } from './errors.js';

/** Opaque cursor over a store position. */
export function encodeCursor(position: string | null): string | null {
  return position === null ? null : Buffer.from(`v1:${position}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const raw = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!raw.startsWith('v1:') || raw.length < 4) throw invalid('cursor', 'malformed cursor; pass nextCursor from the previous page');
  return raw.slice(3);
}
