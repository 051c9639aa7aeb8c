import { describe, expect, it } from 'vitest';
import { ProjectKey } from './schema.js';

const messages = (r: { success: boolean; error?: { issues: Array<{ message: string }> } }): string[] =>
  r.success ? [] : r.error!.issues.map((i) => i.message);

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
