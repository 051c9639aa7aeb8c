import { describe, expect, it } from 'vitest';
import { Day, Limit, Moment } from './common.js';
import { ProjectKey } from './project.js';
import { CreateTaskInput, ListTasksQuery } from './task.js';

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

describe('ProjectKey', () => {
  it('upper-cases the key', () => {
    expect(ProjectKey.parse('web')).toBe('WEB');
    expect(ProjectKey.parse('Api2')).toBe('API2');
  });

  it('accepts up to 10 characters and rejects 11', () => {
    expect(ProjectKey.parse('abcdefghij')).toBe('ABCDEFGHIJ');
    const r = ProjectKey.safeParse('abcdefghijk');
    expect(r.success).toBe(false);
    expect(messages(r)).toContain('must be at most 10 characters');
  });

  it('rejects a leading digit, non-Latin characters and empty keys', () => {
    for (const k of ['1AB', 'WE-B', 'WE B', 'ÄBC', '_AB']) {
      const r = ProjectKey.safeParse(k);
      expect(r.success, k).toBe(false);
      expect(messages(r), k).toContain('must start with a letter and hold only Latin letters and digits');
    }
    expect(messages(ProjectKey.safeParse(''))).toContain('must not be empty');
  });
});

describe('ListTasksQuery', () => {
  it('parses a comma list of types into an array, trimming blanks', () => {
    expect(ListTasksQuery.parse({ type: 'bug,task' }).type).toEqual(['bug', 'task']);
    expect(ListTasksQuery.parse({ type: ' bug , story,' }).type).toEqual(['bug', 'story']);
    expect(ListTasksQuery.parse({ priority: 'high,low' }).priority).toEqual(['high', 'low']);
  });

  it('rejects unknown types naming the bad value and the allowed ones', () => {
    const r = ListTasksQuery.safeParse({ type: 'nope,bug' });
    expect(r.success).toBe(false);
    if (r.success) return;
    expect(r.error.issues).toHaveLength(1);
    expect(r.error.issues[0]!.path).toEqual(['type']);
    expect(r.error.issues[0]!.message).toBe('unknown value nope; allowed: task, bug, story, epic');
  });

  it('fills defaults', () => {
    expect(ListTasksQuery.parse({})).toEqual({ archived: 'false', orderBy: 'created', limit: 100 });
  });

  it('coerces limit and converts updatedSince to epoch ms', () => {
    const q = ListTasksQuery.parse({ limit: '25', updatedSince: '2026-11-01T00:00:00Z', label: 'a, b' });
    expect(q.limit).toBe(25);
    expect(q.updatedSince).toBe(Date.UTC(2026, 10, 1));
    expect(q.label).toEqual(['a', 'b']);
  });

  it('rejects unknown query parameters', () => {
    const r = ListTasksQuery.safeParse({ sort: 'title' });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.code).toBe('unrecognized_keys');
  });
});

describe('Moment', () => {
  it('accepts ISO 8601 timestamps', () => {
    expect(Moment.parse('2026-11-01T00:00:00Z')).toBe(Date.UTC(2026, 10, 1));
    expect(Moment.parse('2026-11-01T02:30:00+02:00')).toBe(Date.UTC(2026, 10, 1, 0, 30));
  });

  it('accepts epoch milliseconds', () => {
    expect(Moment.parse('1767225600000')).toBe(1767225600000);
    expect(Moment.parse('0')).toBe(0);
  });

  it('rejects anything else', () => {
    for (const s of ['', 'yesterday', 'not a date', '2026-13-01T00:00:00Z', '2026-11-01T25:00:00Z']) {
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

describe('CreateTaskInput', () => {
  it('accepts a minimal task and trims the title', () => {
    expect(CreateTaskInput.parse({ title: '  Fix login  ' })).toEqual({ title: 'Fix login' });
  });

  it('fills checklist defaults', () => {
    expect(CreateTaskInput.parse({ title: 'x', checklist: [{ text: ' a ' }] }).checklist).toEqual([{ text: 'a', done: false }]);
  });

  it('rejects unknown fields', () => {
    const r = CreateTaskInput.safeParse({ title: 'x', assignee: 'u_1' });
    expect(r.success).toBe(false);
    if (r.success) return;
    expect(r.error.issues).toHaveLength(1);
    expect(r.error.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['assignee'] });
  });

  it('rejects bad field values', () => {
    expect(messages(CreateTaskInput.safeParse({ title: '   ' }))).toContain('must not be empty');
    expect(CreateTaskInput.safeParse({ title: 'x', type: 'feature' }).success).toBe(false);
    expect(CreateTaskInput.safeParse({ title: 'x', dueDate: '2026-02-30' }).success).toBe(false);
    expect(CreateTaskInput.parse({ title: 'x', dueDate: null }).dueDate).toBeNull();
    expect(messages(CreateTaskInput.safeParse({ title: 'x', timeEstimateSeconds: -1 }))).toContain('must not be negative');
    expect(CreateTaskInput.safeParse({}).success).toBe(false);
  });
});
