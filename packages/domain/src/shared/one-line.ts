import { z } from './zod.js';

/**
 * Every kind of line break, Unicode's included: a title that spans lines could forge a heading, a "SYSTEM:" line or a
 * result row wherever it is shown one per line (agent answers, logs, lists).
 */
export const LINE_BREAK = /[\n\r\v\f\u0085\u2028\u2029]/;

/** A one-line name or title: trimmed, 1 to `max` characters, no line breaks. */
export const oneLine = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !LINE_BREAK.test(s), 'must be one line: line breaks are not allowed');

/**
 * The first `max` UTF-16 units of text, one fewer when the last would be the first half of a surrogate pair: a cut
 * keeps whole code points, so no answer carries a lone surrogate (an emoji, or a Tags-block character, cut in two).
 */
export function cutWhole(text: string, max: number): string {
  if (text.length <= max) return text;
  const high = text.charCodeAt(max - 1);
  return text.slice(0, high >= 0xd800 && high <= 0xdbff ? max - 1 : max);
}
