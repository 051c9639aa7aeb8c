import knex from 'knex';
import { describe, expect, it } from 'vitest';
import type { PageRequest, TaskFilter } from '@tt/domain';
import { listSql, taskListQueries } from './repos/tasks/list.js';

/*
 * A task list's statement is built by Knex once per filter shape and afterwards only bound (`listSql`): for every
 * shape, with values other than the ones it was built with, the kept text and its bindings must be exactly what Knex
 * builds for those values.
 */

const db = knex({ client: 'pg' });
const base = (n: number): TaskFilter => ({ workspaceId: `ws_${n}`, userId: `usr_${n}`, visibleProjectIds: null, archived: 'false', orderBy: 'created' });

const SHAPES: Array<[string, (n: number) => Partial<TaskFilter>, ((n: number) => string)?]> = [
  ['no filter', () => ({})],
  ['next page', () => ({}), (n) => `task_${n}`],
  ['projectId + category', (n) => ({ projectId: `prj_${n}`, category: n % 2 ? 'todo' : 'done' })],
  ['key limited to projects', (n) => ({ visibleProjectIds: [`prj_a${n}`, `prj_b${n}`] })],
  ['key with no projects', () => ({ visibleProjectIds: [] })],
  ['boardId + statusId, position', (n) => ({ boardId: `brd_${n}`, statusId: `col_${n}`, orderBy: 'position' })],
  ['assignee', (n) => ({ assigneeId: `usr_x${n}` })],
  ['my open tasks', (n) => ({ assigneeId: `usr_${n}`, category: 'progress' })],
  ['assigneeId=none', () => ({ assigneeId: 'none' })],
  ['parentId=none', () => ({ parentId: 'none' })],
  ['reporter', (n) => ({ reporterId: `usr_r${n}` })],
  ['types and priorities', (n) => ({ types: n % 2 ? ['bug'] : ['task'], priorities: ['high', n % 2 ? 'low' : 'highest'] })],
  ['labels', (n) => ({ labels: [`l${n}`, `m${n}`] })],
  ['labels in a project', (n) => ({ labels: [`l${n}`], projectId: `prj_${n}` })],
  ['q', (n) => ({ q: `word${n} "quoted"` })],
  ['updatedSince', (n) => ({ updatedSince: 1_700_000_000_000 + n })],
  ['due bounds', (n) => ({ dueBefore: `2026-0${n}-01`, dueAfter: `2025-0${n}-01` })],
  ['created bounds', (n) => ({ createdSince: n, createdBefore: 2 * n + 10 })],
  ['statuses and categories', (n) => ({ statusIds: [`c${n}`, `d${n}`], categories: ['todo', 'done'] })],
  ['archived=all, orderBy=priority', () => ({ archived: 'all', orderBy: 'priority' })],
  ['orderBy=updated', () => ({ orderBy: 'updated' })],
  ['orderBy=dueDate in a project', (n) => ({ projectId: `prj_${n}`, orderBy: 'dueDate' })],
  ['q next page', (n) => ({ q: `w${n}` }), (n) => `task_${n}`],
];

const expected = (f: TaskFilter, page: PageRequest) => {
  const q = taskListQueries(db, f, page);
  const { sql, bindings } = q.page.toSQL();
  return { sql, bindings, offset: q.offset };
};
// A prepared shape's values are read through subqueries (`veiled`); without them the text is Knex's.
const unveiled = (sql: string) => sql.replace(/\(select \?::[a-z]+(\[\])?\)/g, '?');
const built = (f: TaskFilter, page: PageRequest) => {
  const { sql, bindings, offset, kept } = listSql(db, f, page);
  return { got: { sql: unveiled(sql), bindings, offset }, kept };
};

describe('listSql: one statement text per filter shape', () => {
  it.each(SHAPES)('%s: the kept text, bound with new values, is what Knex builds for them', (_name, filter, after) => {
    for (const n of [1, 2, 3]) {
      const f = { ...base(n), ...filter(n) };
      const page = { limit: 10 * n, after: after?.(n) };
      const { got, kept } = built(f, page);
      expect(got).toEqual(expected(f, page));
      expect(kept, 'the shape\'s text is kept and bound').toBe(true);
    }
  });

  it('a prepared shape reads each value through a subquery, with its type; a shape planned per request sees its values', () => {
    const since = listSql(db, { ...base(1), updatedSince: 5, dueAfter: '2025-01-01' }, { limit: 10 }).sql;
    expect(since).not.toContain('(select ?::'); // a due bound beside updatedSince: planned per request
    const sql = listSql(db, { ...base(1), updatedSince: 5 }, { limit: 10 }).sql;
    expect(sql).toContain('"tasks"."updated_at" > (select ?::bigint)');
    expect(sql).toContain('"tasks"."workspace_id" = (select ?::text)');
    expect(sql).toMatch(/limit \(select \?::int\)/);
    expect(sql.match(/\?/g)!.length).toBe(sql.match(/\(select \?::/g)!.length + 1); // the walk's length stays a constant
    const labels = listSql(db, { ...base(1), labels: ['a', 'b'] }, { limit: 10 }).sql;
    expect(labels).toContain('(select ?::text[])');
    const reporter = listSql(db, { ...base(1), reporterId: 'usr_1' }, { limit: 10 }).sql;
    expect(reporter).not.toContain('(select ?::');
  });

  it('a person alone or with a category holds both ways to its page (a walk of the ids, a top-N of the matches); beside a project, only the top-N', () => {
    const walk = /tasks\.assignee_ids @> array\[\(select \?::text\)\]::text\[\] as hit/;
    for (const f of [{ assigneeId: 'usr_2' }, { assigneeId: 'usr_2', category: 'progress' as const }]) {
      const sql = listSql(db, { ...base(1), ...f }, { limit: 10 }).sql;
      expect(sql, JSON.stringify(f)).toMatch(walk);
      expect(sql).toContain('"matches"');
    }
    const inProject = listSql(db, { ...base(1), assigneeId: 'usr_2', projectId: 'prj_1' }, { limit: 10 }).sql;
    expect(inProject).not.toMatch(/ as hit/);
    expect(listSql(db, { ...base(1), assigneeId: 'none' }, { limit: 10 }).sql).not.toMatch(/ as hit/);
  });

  it("a person's total comes from task_assignee_counts, alone or with the layout; with labels, a type or a priority it is counted on the rows", () => {
    const counted = (f: Partial<TaskFilter>) => {
      const q = taskListQueries(db, { ...base(1), ...f }, { limit: 10 });
      return q.counters && q.count.toSQL().sql.includes('"task_assignee_counts"');
    };
    expect([
      counted({ assigneeId: 'usr_2' }), counted({ assigneeId: 'usr_2', category: 'progress' }),
      counted({ assigneeId: 'usr_2', projectId: 'prj_1', archived: 'all' }), counted({ assigneeId: 'usr_2', visibleProjectIds: ['prj_1'] }),
    ]).toEqual([true, true, true, true]);
    expect([
      counted({ assigneeId: 'none' }), counted({ assigneeId: 'usr_2', labels: ['a'] }), counted({ assigneeId: 'usr_2', types: ['bug'] }),
      counted({ assigneeId: 'usr_2', priorities: ['high'] }), counted({ assigneeId: 'usr_2', q: 'x' }),
    ]).toEqual([false, false, false, false, false]);
  });

  it('a cursor of a column or keyed order, and a parent, are built per request (their values shape the text)', () => {
    const position = { ...base(1), statusId: 'col_1', orderBy: 'position' as const };
    const page = { limit: 5, after: '1024|task_1|3' };
    const parent = { ...base(1), parentId: 'PRJ-12' };
    const updated = { ...base(1), orderBy: 'updated' as const };
    const keyed = { limit: 5, after: '1700000000000|task_9' };
    for (const [f, p] of [[position, page], [parent, { limit: 5 }], [updated, keyed]] as const) {
      for (let i = 0; i < 2; i++) expect(built(f, p)).toEqual({ got: expected(f, p), kept: false });
    }
  });
});
