import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { clip } from './untrusted.js';

/**
 * Output budget: the text of every answer is at most BUDGET characters, and its structured content never more.
 * In Markdown format (the default) the structured content is a compact index (ids, keys, totals, cursors); in JSON
 * format the text is the JSON itself and the structured content the same object, so nothing is sent twice by default.
 */
export const BUDGET = 20_000;

export const Format = z.enum(['markdown', 'json']).default('markdown').describe('markdown (default, for reading) or json (the same data as JSON)');
export type Format = z.infer<typeof Format>;

/** Nullable as `anyOf` in JSON Schema: a `type` array is legal but less portable across model providers. */
export const orNull = <T extends z.ZodType>(s: T) => z.union([s, z.null()]);

/** A tool result in the caller's format; `index` is the compact structured content of the Markdown form. */
export function answer(format: Format, markdown: () => string, data: Record<string, unknown>, index: Record<string, unknown>): CallToolResult {
  if (format === 'json') {
    const fitted = fitJson(data);
    return { content: [{ type: 'text', text: JSON.stringify(fitted) }], structuredContent: fitted };
  }
  return { content: [{ type: 'text', text: bound(markdown()) }], structuredContent: index };
}

const CUT = ' … [cut: the answer budget is 20000 characters]';

/**
 * JSON within the budget: while it is too long, the longest string is shortened (and marked as cut), so the shape,
 * and the output schema it passes, stay the same. Lists are paged before they get here; long texts are what is left.
 */
export function fitJson<T>(data: T): T {
  if (JSON.stringify(data).length <= BUDGET) return data;
  const root = structuredClone(data) as unknown;
  const slots: Array<{ holder: Record<string | number, unknown>; key: string | number }> = [];
  const collect = (v: unknown): void => {
    if (v === null || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const key = Array.isArray(v) ? Number(k) : k;
      if (typeof x === 'string') slots.push({ holder: v as Record<string | number, unknown>, key });
      else collect(x);
    }
  };
  collect(root);
  const len = (slot: (typeof slots)[number]) => (slot.holder[slot.key] as string).length;
  for (let over = JSON.stringify(root).length - BUDGET; over > 0 && slots.length; over = JSON.stringify(root).length - BUDGET) {
    const longest = slots.reduce((a, b) => (len(b) > len(a) ? b : a));
    const text = longest.holder[longest.key] as string;
    if (text.length <= 200) break;
    const keep = Math.max(100, Math.min(Math.floor(text.length / 2), text.length - over - CUT.length - 50));
    longest.holder[longest.key] = text.slice(0, keep) + CUT;
  }
  return root as T;
}

/** A short confirmation of a write with the ids to chain on. */
export function done(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: bound(text) }], structuredContent: structured };
}

/** The last guard: text over the budget is cut with a note saying how to ask for less. */
export function bound(text: string): string {
  if (text.length <= BUDGET) return text;
  return clip(text, BUDGET - 200, 'left out: the answer budget is 20000 characters; ask for less (limit, sections, a cursor)').text;
}

/**
 * A page of a list that fits the budget: when the rendering of `limit` items is too long, fewer are fetched again,
 * so the cursor of the answer points right after the last item shown.
 */
export async function fitPage<P extends { data: unknown[] }>(
  limit: number, fetch: (n: number) => Promise<P>, size: (page: P) => number | Promise<number>, budget = BUDGET - 1000,
): Promise<P> {
  let n = limit;
  let page = await fetch(n);
  for (let i = 0; i < 4; i++) {
    const len = await size(page);
    if (len <= budget || page.data.length <= 1) return page;
    n = Math.max(1, Math.floor((page.data.length * budget * 0.9) / len));
    page = await fetch(n);
  }
  return page;
}
