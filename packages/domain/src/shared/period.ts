import { DateTime } from 'luxon';
import { invalid } from './errors.js';

/**
 * A moment as every text answer shows it (MCP tools, prompts, resources, the context page): the workspace's wall-clock
 * time with its offset, `2026-11-28 17:06 +01:00`, so the same event reads the same everywhere and needs no zone
 * name to be placed. Structured data keeps epoch milliseconds. An unknown zone falls back to UTC.
 */
export function wallClock(at: number, timezone: string): string {
  const t = DateTime.fromMillis(at, { zone: timezone });
  return (t.isValid ? t : DateTime.fromMillis(at, { zone: 'UTC' })).toFormat('yyyy-LL-dd HH:mm ZZ');
}

/** The day each zone was last asked for, with the instants it starts and ends: one date per zone and day, not one per call. */
const days = new Map<string, { date: string; from: number; to: number }>();

/** Today's date (YYYY-MM-DD) in a time zone. */
export function today(timezone: string, now: number): string {
  const known = days.get(timezone);
  if (known && now >= known.from && now < known.to) return known.date;
  const t = DateTime.fromMillis(now, { zone: timezone });
  const date = t.toISODate()!;
  if (t.isValid) {
    const start = t.startOf('day');
    // Zones are a few hundred names at most; a workspace's zone is one of them.
    if (days.size >= 1000) days.clear();
    days.set(timezone, { date, from: start.toMillis(), to: start.plus({ days: 1 }).toMillis() });
  }
  return date;
}

/**
 * The report period: inclusive days, at most one year (from 2026-01-15 the last allowed day is 2027-01-14).
 * Defaults: the 1st of the current month to today in the workspace's zone; with only `to`, the 1st of its month;
 * with only `from`, today or the last day of the year that starts at `from`, whichever is earlier.
 */
export function reportPeriod(from: string | undefined, to: string | undefined, timezone: string, now: number): { from: string; to: string } {
  // The day before `start`, a year on: 2026-01-15 -> 2027-01-14, and 2024-02-29 -> 2025-02-28.
  const lastAllowed = (start: string) => DateTime.fromISO(start).minus({ days: 1 }).plus({ years: 1 }).toISODate()!;
  let end = to ?? today(timezone, now);
  const start = from ?? DateTime.fromISO(end).startOf('month').toISODate()!;
  if (to === undefined && end > lastAllowed(start)) end = lastAllowed(start);
  if (start > end) throw invalid('query.from', `must not be after to (${end})`);
  if (end > lastAllowed(start)) {
    throw invalid('query.to', `the period may be at most one year; with from ${start} the last day is ${lastAllowed(start)}`);
  }
  return { from: start, to: end };
}

/** Epoch ms bounds of whole days in a time zone: [start of `from`, start of the day after `to`). */
export function dayBounds(from: string | undefined, to: string | undefined, timezone: string): { start?: number; end?: number } {
  const out: { start?: number; end?: number } = {};
  if (from) out.start = DateTime.fromISO(from, { zone: timezone }).startOf('day').toMillis();
  if (to) out.end = DateTime.fromISO(to, { zone: timezone }).plus({ days: 1 }).startOf('day').toMillis();
  return out;
}

/** The calendar day of a moment in a time zone. */
export function dayOf(ms: number, timezone: string): string {
  return DateTime.fromMillis(ms, { zone: timezone }).toISODate()!;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

/** The English short name of a day's weekday (a report can hold tens of thousands of days: no date library here). */
export function weekday(day: string): string {
  return WEEKDAYS[new Date(`${day}T00:00:00Z`).getUTCDay()]!;
}
