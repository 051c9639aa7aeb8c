import type { CallToolResult } from '../tool.js';
import { z } from 'zod';
import { clip, cutAt, fenceJson, JSON_FENCE_CHARS, jsonText, strip } from './untrusted.js';
import { composed, gateValue } from './gate.js';

/**
 * Output budget: the text of every answer is at most BUDGET characters, and its structured content never more.
 * In Markdown format (the default) the structured content is a compact index (ids, keys, totals, cursors); in JSON
 * format the text is the JSON itself, inside one untrusted-text block with every `<` written `\u003c`, and the
 * structured content the same object, so nothing is sent twice by default. Every string of structured content is
 * neutralised like fenced text.
 */
export const BUDGET = 20_000;

export const Format = z.enum(['markdown', 'json']).default('markdown').describe('markdown (default, for reading) or json (the same data as JSON)');
export type Format = z.infer<typeof Format>;

/** Nullable as `anyOf` in JSON Schema: a `type` array is legal but less portable across model providers. */
export const orNull = <T extends z.ZodType>(s: T) => z.union([s, z.null()]);

/** A tool result in the caller's format; `index` is the compact structured content of the Markdown form. */
export function answer(format: Format, markdown: () => string, data: Record<string, unknown>, index: Record<string, unknown>): CallToolResult {
  if (format === 'json') {
    const fitted = fitJson(gateValue(data));
    return { content: [{ type: 'text', text: composed(fenceJson(fitted)) }], structuredContent: fitted };
  }
  return { content: [{ type: 'text', text: bound(markdown()) }], structuredContent: gateValue(index) };
}

const CUT = ' … [cut: the answer budget is 20000 characters]';

/**
 * JSON within the budget: while it is too long, the longest string is shortened (and marked as cut), so the shape,
 * and the output schema it passes, stay the same. Lists are paged before they get here; long texts are what is left.
 */
export function fitJson<T>(data: T): T {
  const size = (v: unknown) => jsonText(v).length + JSON_FENCE_CHARS;
  if (size(data) <= BUDGET) return data;
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
  for (let over = size(root) - BUDGET; over > 0 && slots.length; over = size(root) - BUDGET) {
    const longest = slots.reduce((a, b) => (len(b) > len(a) ? b : a));
    const text = longest.holder[longest.key] as string;
    if (text.length <= 200) break;
    const keep = Math.max(100, Math.min(Math.floor(text.length / 2), text.length - over - CUT.length - 50));
    longest.holder[longest.key] = cutAt(text, keep) + CUT;
  }
  return root as T;
}

/** A short confirmation of a write with the ids to chain on. */
export function done(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: bound(text) }], structuredContent: gateValue(structured) };
}

/** The last guard: text over the budget is cut with a note saying how to ask for less. */
export function bound(text: string): string {
  // The last sweep: the server writes no invisible characters, so none may leave in any answer.
  text = strip(text);
  if (text.length <= BUDGET) return composed(text);
  return composed(clip(text, BUDGET - 200, 'left out: the answer budget is 20000 characters; ask for less (limit, sections, a cursor)').text);
}

/** The characters a list's items may take in an answer: the rest of the budget is for its heading and page note. */
export const LIST_BUDGET = BUDGET - 1000;

/** A page that can keep its first n items, with the cursor right after the n-th (itself when it has no more). */
export type Cuttable<P> = P & { cut(n: number): Cuttable<P> };

/** A domain page that gives the cursor after any of its first items (CutPage), as a Cuttable page. */
export function cuttable<P extends { data: unknown[]; nextCursor: string | null; cursorAfter(n: number): string | null }>(page: P): Cuttable<P> {
  const first = (n: number): Cuttable<P> => {
    const shown = { ...page, data: page.data.slice(0, n), nextCursor: page.cursorAfter(n), cut: (m: number) => (m >= n ? shown : first(m)) } as Cuttable<P>;
    return shown;
  };
  const whole = { ...page, cut: (n: number) => (n >= page.data.length ? whole : first(n)) } as Cuttable<P>;
  return whole;
}

/**
 * A page of a list that fits the budget: when the rendering of its items is too long, it is cut to fewer, so the
 * cursor of the answer points right after the last item shown. Nothing is read again: the page names the cursor after
 * any of its items.
 */
export async function fitPage<P extends { data: unknown[]; cut(n: number): P }>(
  page: P, size: (page: P) => number | Promise<number>, budget = LIST_BUDGET,
): Promise<P> {
  for (let i = 0; i < 4; i++) {
    const len = await size(page);
    if (len <= budget || page.data.length <= 1) return page;
    page = page.cut(Math.max(1, Math.floor((page.data.length * budget * 0.9) / len)));
  }
  return page;
}
