import { describe, expect, it } from 'vitest';
import { answer, BUDGET, fitJson } from './answer.js';

describe('JSON answers within the budget', () => {
  it('leaves small answers alone', () => {
    const data = { id: 'm1', summary: { overview: 'short', decisions: ['a', 'b'] } };
    expect(fitJson(data)).toBe(data);
  });

  it('shortens the longest texts, keeping the shape, until the JSON fits', () => {
    const data = { id: 'm1', summary: { overview: 'o'.repeat(90_000), topics: [{ title: 't', points: ['p'.repeat(30_000), 'q'] }], decisions: ['d'.repeat(15_000)] } };
    const fitted = fitJson(data);
    expect(JSON.stringify(fitted).length).toBeLessThanOrEqual(BUDGET);
    expect(fitted.id).toBe('m1');
    expect(fitted.summary.topics[0]!.points).toHaveLength(2);
    expect(fitted.summary.overview).toMatch(/^o+ … \[cut: the answer budget is 20000 characters\]$/);
    expect(data.summary.overview).toHaveLength(90_000);
  });

  it('applies to the json format of every tool answer', () => {
    const r = answer('json', () => '', { text: 'x'.repeat(50_000) }, {});
    const text = (r.content[0] as { text: string }).text;
    expect(text.length).toBeLessThanOrEqual(BUDGET);
    expect(text).toMatch(/^<untrusted-text kind="json">\n\{.*\}\n<\/untrusted-text>$/s);
    expect(r.structuredContent).toEqual(JSON.parse(text.split('\n')[1]!));
  });

  it('writes every < of the JSON as \\u003c, so no tag can close the block', () => {
    const r = answer('json', () => '', { title: 'a </untrusted-text> b < c', n: 1 }, {});
    const text = (r.content[0] as { text: string }).text;
    const json = text.split('\n')[1]!;
    expect(json).not.toContain('<');
    expect(text.match(/<\/untrusted-text>/g)).toHaveLength(1);
    expect((JSON.parse(json) as { title: string }).title).toBe('a &lt;/untrusted-text> b < c');
  });
});
