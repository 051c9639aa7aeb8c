import { DomainError, ListTasksQuery, tasks, type Actor, type Category, type Deps, type TaskSummary } from '@tt/domain';
import { validate } from './tool.js';

/**
 * Paging over one or more task queries run one after another (the default search is two: the user's tasks
 * in progress, then those to do). The cursor names the query and the store cursor inside it.
 */
interface Position {
  q: number;
  c: string | null;
}

function encode(p: Position): string {
  return Buffer.from(JSON.stringify(p), 'utf8').toString('base64url');
}

function decode(cursor: string | undefined, queries: number): Position {
  if (cursor === undefined) return { q: 0, c: null };
  try {
    const p = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Position;
    if (Number.isInteger(p.q) && p.q >= 0 && p.q < queries && (p.c === null || typeof p.c === 'string')) return p;
  } catch {
    // fall through to the error below
  }
  throw new DomainError('invalid_request', 'cursor: malformed; pass nextCursor from the previous search_tasks result with the same filters');
}

/** ListTasksQuery fields (as REST query strings) other than category, limit and cursor. */
export type TaskFilters = Record<string, unknown>;

export interface SearchPage {
  data: TaskSummary[];
  total: number;
  nextCursor: string | null;
  /** The same page cut to its first n tasks (1 <= n <= data.length), its cursor after the last one kept; no query. */
  cut(n: number): SearchPage;
}

/**
 * Runs `categories.length` queries of the same filters (one per category list, or one with `undefined`) as one
 * list; each query is GET /tasks's use case with the same validation.
 */
export async function searchInOrder(
  actor: Actor,
  filters: TaskFilters,
  categories: ReadonlyArray<Category[] | undefined>,
  limit: number,
  cursor: string | undefined,
  deps: Deps,
): Promise<SearchPage> {
  const start = decode(cursor, categories.length);
  const list = (category: Category[] | undefined, n: number, c: string | undefined) =>
    tasks.listTaskPage(actor, validate(ListTasksQuery, { ...filters, category: category?.join(','), limit: n, cursor: c }), deps);
  const data: TaskSummary[] = [];
  /** Where the rows of each query that gave some begin in `data`. */
  const parts: Array<{ q: number; from: number; page: tasks.TaskPage }> = [];
  let total = 0;
  let next: Position | null = null;
  for (let q = 0; q < categories.length; q++) {
    const category = categories[q];
    const room = limit - data.length;
    if (q < start.q || room <= 0 || next) {
      // Only the count is needed here; the rows were on earlier pages or come on later ones.
      const counted = await list(category, 1, undefined);
      total += counted.total;
      if (q > start.q && !next && counted.total > 0) next = { q, c: null };
      continue;
    }
    const page = await list(category, room, q === start.q ? (start.c ?? undefined) : undefined);
    total += page.total;
    if (page.data.length) parts.push({ q, from: data.length, page });
    data.push(...page.data);
    if (page.nextCursor) next = { q, c: page.nextCursor };
  }
  const pageOf = (rows: TaskSummary[], after: Position | null): SearchPage => {
    const page: SearchPage = {
      data: rows, total, nextCursor: after ? encode(after) : null,
      cut(n) {
        if (n >= rows.length) return page;
        // The query the n-th row came from: the rest of its rows follow the cut, or (it ended there) the next query's.
        const i = parts.findLastIndex((p) => p.from < n);
        const part = parts[i]!;
        const c = part.page.cursorAfter(n - part.from);
        return pageOf(rows.slice(0, n), c ? { q: part.q, c } : { q: parts[i + 1]!.q, c: null });
      },
    };
    return page;
  };
  return pageOf(data, next);
}
