import { describe, expect, it } from 'vitest';
import { formatIssues } from '../shared/index.js';
import { CreateTaskInput, ListTasksQuery } from './schema.js';

const messages = (r: { success: boolean; error?: { issues: Array<{ message: string }> } }): string[] =>
  r.success ? [] : r.error!.issues.map((i) => i.message);

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
describe('formatIssues on the task schema', () => {
  it('formats real zod issues so that every faulty field is named', () => {
    const r = CreateTaskInput.safeParse({ title: ' ', foo: 1, checklist: [{ text: '' }] });
    expect(r.success).toBe(false);
    if (r.success) return;
    const msg = formatIssues(r.error.issues, 'body');
    expect(msg.split('; ').sort()).toEqual(
      ['body.checklist.0.text: must not be empty', 'body.foo: unknown field', 'body.title: must not be empty'].sort(),
    );
  });
});
