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
