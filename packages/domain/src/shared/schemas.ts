import { DateTime } from 'luxon';
import { z } from './zod.js';

export const Id = z.string().min(1).max(100).openapi({ description: 'Opaque identifier', example: 'task_01JD8Z6Q3K5WX2N7V9R4T0Y1AB' });
export const Ts = z.number().int().openapi({ description: 'Unix epoch milliseconds', example: 1767225600000 });

/** Calendar years a client may name: wide enough for any real plan, narrow enough for every database type. */
export const YEARS = { min: 1900, max: 9999 } as const;
const MOMENT_MIN = Date.UTC(YEARS.min, 0, 1);
const MOMENT_MAX = Date.UTC(YEARS.max + 1, 0, 1) - 1;
const inYears = (ms: number) => ms >= MOMENT_MIN && ms <= MOMENT_MAX;
const yearsText = `must be between the years ${YEARS.min} and ${YEARS.max}`;

/** An epoch-ms moment sent by a client (expiry, meeting times): a whole number within the sane years. */
export const InputTs = Ts.refine(inYears, yearsText);

export const Day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day YYYY-MM-DD')
  .refine((s) => {
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
  }, 'must be a real calendar day')
  .refine((s) => inYears(Date.parse(`${s}T00:00:00Z`)), yearsText)
  .openapi({ description: 'Calendar day YYYY-MM-DD', example: '2026-11-22' });

export const Limit = z.coerce
  .number()
  .int('must be an integer')
  .min(1, 'must be at least 1')
  .max(500, 'must be at most 500')
  .default(100)
  .openapi({ description: 'Page size, up to 500', example: 100 });
export const Cursor = z.string().min(1).max(500).openapi({ description: 'Cursor from the previous page' });
export const PageQuery = { limit: Limit, cursor: Cursor.optional() };

/**
 * A date-time without an offset (`2026-11-26T10:00`, or a bare day): it names a wall-clock time of the workspace, so
 * the use case, which knows the workspace, turns it into a moment with `momentIn`. The schema cannot: it is parsed
 * before anyone knows whose request it is.
 */
export interface LocalMoment {
  local: string;
}
export type MomentValue = number | LocalMoment;

/** A moment given as ISO 8601 or epoch milliseconds; without an offset, a `LocalMoment` of the workspace's zone. */
export const Moment = z
  .string()
  .transform((s, ctx): MomentValue => {
    const iso = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;
    const m = iso.exec(s);
    const ms = /^\d{1,16}$/.test(s) ? Number(s) : m ? Date.parse(m[1] ? s : `${s.replace(' ', 'T')}${s.length === 10 ? 'T00:00' : ''}Z`) : Number.NaN;
    // Date.parse rolls a day past the month's end over (2026-02-30 is 2 March): the calendar date must exist.
    if (!Number.isFinite(ms) || (m && !DateTime.fromISO(s.slice(0, 10), { zone: 'utc' }).isValid)) {
      ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 timestamp or epoch milliseconds' });
      return z.NEVER;
    }
    // Checked in UTC: a time zone moves a moment by hours, never across the years' bounds' meaning.
    if (!inYears(ms)) {
      ctx.addIssue({ code: 'custom', message: yearsText });
      return z.NEVER;
    }
    return m && !m[1] ? { local: s.replace(' ', 'T') } : ms;
  })
  .openapi({
    type: 'string',
    description: "ISO 8601 timestamp or epoch milliseconds; a date-time without an offset is read in the workspace's time zone",
    example: '2026-11-01T00:00:00Z',
  });

/** The moment a `Moment` value names, a `LocalMoment` read as wall-clock time in `timezone`. */
export function momentIn(m: MomentValue, timezone: string): number;
export function momentIn(m: MomentValue | undefined, timezone: string): number | undefined;
export function momentIn(m: MomentValue | undefined, timezone: string): number | undefined {
  if (m === undefined || typeof m === 'number') return m;
  return DateTime.fromISO(m.local, { zone: timezone }).toMillis();
}

/** Comma list of enum values in a query string. */
export const commaEnum = <const T extends readonly [string, ...string[]]>(values: T) =>
  z
    .string()
    .transform((s, ctx) => {
      const parts = s.split(',').map((p) => p.trim()).filter(Boolean);
      const bad = parts.filter((p) => !(values as readonly string[]).includes(p));
      if (bad.length) {
        ctx.addIssue({ code: 'custom', message: `unknown value ${bad.join(', ')}; allowed: ${values.join(', ')}` });
        return z.NEVER;
      }
      return parts as T[number][];
    })
    .openapi({ type: 'string', description: `Comma list of ${values.join(', ')}` });

export const commaList = z
  .string()
  .transform((s) => s.split(',').map((p) => p.trim()).filter(Boolean))
  .openapi({ type: 'string', description: 'Comma-separated list' });

export const paged = <T extends z.ZodTypeAny>(item: T, name: string) =>
  z
    .object({
      data: z.array(item),
      nextCursor: z.string().nullable().openapi({ description: 'null on the last page' }),
      total: z.number().int().openapi({ description: 'Count of items matching the filters' }),
    })
    .openapi(name);

export const envelope = <T extends z.ZodTypeAny>(item: T, name: string) => z.object({ data: item }).openapi(name);

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'invalid_request' }),
      message: z.string().openapi({ example: 'body.title: expected string' }),
    }),
  })
  .openapi('Error');

export type Page<T> = { data: T[]; nextCursor: string | null; total: number };
