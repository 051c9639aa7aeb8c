import { describe, expect, it } from 'vitest';
import { DomainError } from './errors.js';
import { DateTime } from 'luxon';
import { dayBounds, dayOf, reportPeriod, today, wallClock, weekday } from './period.js';

// 2026-11-30 22:30 UTC is already 2026-12-01 in Moscow (UTC+3).
const LATE = Date.UTC(2026, 10, 30, 22, 30);

describe('report period', () => {
  it('today is the zone\'s date at every instant, across midnights and days of 23 and 25 hours, asked in any order', () => {
    const start = Date.UTC(2026, 2, 6); // New York and Sydney change their clocks in the days that follow
    const instants = Array.from({ length: 1200 }, (_, i) => start + i * 17 * 60_000 + (i % 7) * 1000);
    // Forward, then backward, then jumping: a remembered day must never answer for an instant outside it.
    const order = [...instants, ...[...instants].reverse(), ...instants.filter((_, i) => i % 3 === 0), ...instants.filter((_, i) => i % 3 === 1)];
    for (const zone of ['America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'UTC']) {
      for (const at of order) expect(today(zone, at)).toBe(DateTime.fromMillis(at, { zone }).toISODate());
    }
  });

  it('defaults to the 1st of the current month to today in the zone', () => {
    expect(today('Europe/Moscow', LATE)).toBe('2026-12-01');
    expect(today('UTC', LATE)).toBe('2026-11-30');
    expect(reportPeriod(undefined, undefined, 'Europe/Moscow', LATE)).toEqual({ from: '2026-12-01', to: '2026-12-01' });
    expect(reportPeriod(undefined, undefined, 'UTC', LATE)).toEqual({ from: '2026-11-01', to: '2026-11-30' });
  });

  it('takes the 1st of the month of `to`, and caps an open end at one year', () => {
    expect(reportPeriod(undefined, '2026-03-15', 'UTC', LATE)).toEqual({ from: '2026-03-01', to: '2026-03-15' });
    expect(reportPeriod('2024-02-10', undefined, 'UTC', LATE)).toEqual({ from: '2024-02-10', to: '2025-02-09' });
  });

  it('allows exactly one year and refuses a day more, or a reversed period', () => {
    expect(reportPeriod('2024-01-01', '2024-12-31', 'UTC', LATE)).toEqual({ from: '2024-01-01', to: '2024-12-31' });
    expect(reportPeriod('2024-02-29', '2025-02-28', 'UTC', LATE).to).toBe('2025-02-28');
    expect(() => reportPeriod('2025-01-01', '2026-01-01', 'UTC', LATE)).toThrow(/query\.to: the period may be at most one year/);
    expect(() => reportPeriod('2026-03-05', '2026-03-01', 'UTC', LATE)).toThrow(DomainError);
  });
});

describe('days in a zone', () => {
  it('bounds whole days in the zone as epoch ms', () => {
    const b = dayBounds('2026-03-11', '2026-03-11', 'Europe/Moscow');
    expect(b).toEqual({ start: Date.UTC(2026, 2, 10, 21), end: Date.UTC(2026, 2, 11, 21) });
    expect(dayBounds(undefined, undefined, 'UTC')).toEqual({});
    expect(dayOf(Date.UTC(2026, 2, 10, 21, 30), 'Europe/Moscow')).toBe('2026-03-11');
  });

  it('names weekdays', () => {
    expect(['2026-03-01', '2026-03-02', '2026-11-22'].map(weekday)).toEqual(['Sun', 'Mon', 'Sun']);
  });
});

describe('wallClock', () => {
  it("writes a moment in the zone's wall-clock time with the offset it has then", () => {
    expect(wallClock(LATE, 'Europe/Moscow')).toBe('2026-12-01 01:30 +03:00');
    expect(wallClock(Date.UTC(2026, 10, 28, 16, 6), 'Europe/Berlin')).toBe('2026-11-28 17:06 +01:00');
    expect(wallClock(Date.UTC(2026, 6, 1, 16, 6), 'Europe/Berlin')).toBe('2026-07-01 18:06 +02:00');
    expect(wallClock(Date.UTC(2026, 10, 28, 16, 6), 'America/St_Johns')).toBe('2026-11-28 12:36 -03:30');
    expect(wallClock(LATE, 'UTC')).toBe('2026-11-30 22:30 +00:00');
  });

  it('falls back to UTC for a zone it does not know', () => {
    expect(wallClock(LATE, 'Nowhere/Atlantis')).toBe('2026-11-30 22:30 +00:00');
  });
});
