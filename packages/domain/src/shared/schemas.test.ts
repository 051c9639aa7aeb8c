import { describe, expect, it } from 'vitest';
import { Day, Limit, Moment, momentIn } from './schemas.js';

const messages = (r: { success: boolean; error?: { issues: Array<{ message: string }> } }): string[] =>
  r.success ? [] : r.error!.issues.map((i) => i.message);

describe('Day', () => {
  it('accepts real calendar days, including leap days', () => {
    expect(Day.parse('2026-11-22')).toBe('2026-11-22');
    expect(Day.parse('2024-02-29')).toBe('2024-02-29');
  });

  it('rejects days that do not exist', () => {
    for (const d of ['2026-02-30', '2025-02-29', '2026-04-31', '2026-13-01', '2026-00-10']) {
      const r = Day.safeParse(d);
      expect(r.success, d).toBe(false);
      expect(messages(r), d).toContain('must be a real calendar day');
    }
  });

  it('rejects other formats', () => {
    for (const d of ['2026-1-01', '26-01-01', '2026/01/01', '2026-01-01T00:00:00Z', '']) {
      const r = Day.safeParse(d);
      expect(r.success, d).toBe(false);
      expect(messages(r), d).toContain('must be a day YYYY-MM-DD');
    }
  });
});

describe('Moment', () => {
  it('accepts ISO 8601 timestamps', () => {
    expect(Moment.parse('2026-11-01T00:00:00Z')).toBe(Date.UTC(2026, 10, 1));
    expect(Moment.parse('2026-11-01T02:30:00+02:00')).toBe(Date.UTC(2026, 10, 1, 0, 30));
  });

  it('keeps a date-time without an offset as wall-clock time, read in the workspace time zone by momentIn', () => {
    expect(Moment.parse('2026-11-26T10:00:00')).toEqual({ local: '2026-11-26T10:00:00' });
    expect(Moment.parse('2026-11-26 10:00')).toEqual({ local: '2026-11-26T10:00' });
    expect(momentIn(Moment.parse('2026-11-26T10:00:00'), 'Europe/Moscow')).toBe(Date.UTC(2026, 10, 26, 7));
    expect(momentIn(Moment.parse('2026-11-26'), 'Pacific/Kiritimati')).toBe(Date.UTC(2026, 10, 25, 10));
    expect(momentIn(Moment.parse('2026-11-26T10:00:00Z'), 'Europe/Moscow')).toBe(Date.UTC(2026, 10, 26, 10));
    expect(momentIn(undefined, 'Europe/Moscow')).toBeUndefined();
    expect(Moment.safeParse('2026-11-26T25:00:00').success).toBe(false);
  });

  it('accepts epoch milliseconds', () => {
    expect(Moment.parse('1767225600000')).toBe(1767225600000);
    expect(Moment.parse('0')).toBe(0);
  });

  it('rejects anything else', () => {
    for (const s of ['', 'yesterday', 'not a date', '2026-13-01T00:00:00Z', '2026-11-01T25:00:00Z', '2026-02-30', '2026-02-30T10:00:00Z', '2026-04-31 08:00']) {
      const r = Moment.safeParse(s);
      expect(r.success, s).toBe(false);
      expect(messages(r), s).toContain('must be an ISO 8601 timestamp or epoch milliseconds');
    }
  });
});

describe('Limit', () => {
  it('coerces strings and defaults to 100', () => {
    expect(Limit.parse('500')).toBe(500);
    expect(Limit.parse(1)).toBe(1);
    expect(Limit.parse(undefined)).toBe(100);
  });

  it('rejects values above 500, below 1 and fractions', () => {
    expect(messages(Limit.safeParse('501'))).toContain('must be at most 500');
    expect(messages(Limit.safeParse(0))).toContain('must be at least 1');
    expect(messages(Limit.safeParse('2.5'))).toContain('must be an integer');
    expect(Limit.safeParse('abc').success).toBe(false);
  });
});
