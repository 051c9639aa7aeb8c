import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usesPreparedStatements } from '@tt/store';
import { startHarness, type Harness, type TestWorkspace } from './test/harness.js';

/*
 * The hot statements run as named prepared statements on PostgreSQL (parsed and planned once per connection): the
 * key of every request, the full task, every list shape whose plan does not depend on its values, and the create.
 * If one of them starts being sent unnamed (a builder that no longer gives the same text, a refactor that bypasses
 * the prepared path), this fails. On PGlite and behind PgBouncer (DATABASE_PREPARED_STATEMENTS=false) nothing is named.
 */

let h: Harness;
let ws: TestWorkspace;
let project: any;
let prepared: boolean;

interface Sent { sql: string; name: string | undefined }

/** The statements a request sends, each with the prepared statement's name it ran under (none: unnamed). */
async function sent(db: Knex, send: () => Promise<{ status: number }>): Promise<Sent[]> {
  const seen: Sent[] = [];
  const listener = (q: { sql: string; options?: { name?: string } }) => {
    // The outbox relay's polling (its statements name "outbox"; its transaction's BEGIN and COMMIT) runs beside.
    if (!/"outbox"|^(BEGIN|COMMIT|ROLLBACK)\b/i.test(q.sql)) seen.push({ sql: q.sql, name: q.options?.name });
  };
  db.on('query', listener);
  try {
    const res = await send();
    expect(res.status).toBeLessThan(300);
  } finally {
    db.off('query', listener);
  }
  return seen;
}

const show = (s: Sent[]) => s.map((x) => `${x.name ?? '(unnamed)'}: ${x.sql.slice(0, 120)}`).join('\n');

beforeAll(async () => {
  h = await startHarness();
  prepared = usesPreparedStatements(h.runtime.db);
  ws = await h.workspace();
  project = (await h.call(ws.token, 'POST', '/projects', { name: 'Prepared', key: 'PRP', template: 'scrum' })).body.data;
  for (let i = 0; i < 3; i++) await h.call(ws.token, 'POST', '/tasks', { title: `seed ${i}`, projectId: project.id, assigneeIds: [ws.adminUser.id], labels: ['a'] });
  await h.runtime.jobs.drain();
});
afterAll(() => h.close());

describe('hot statements are prepared', () => {
  it('GET /tasks/{key}: the key and the full task, both named', async () => {
    const t = (await h.call(ws.token, 'GET', `/tasks?projectId=${project.id}&limit=1`)).body.data[0];
    const s = await sent(h.runtime.db, () => h.call(ws.token, 'GET', `/tasks/${t.key}`));
    expect(s, show(s)).toHaveLength(2);
    for (const x of s) expect(Boolean(x.name), show(s)).toBe(prepared);
  });

  it('GET /tasks: every shape whose plan holds for any value is named, the same name each time', async () => {
    const status = project.boards[0].statuses[1].id;
    const shapes = [
      '', `projectId=${project.id}`, `projectId=${project.id}&category=todo`, 'category=progress', 'assigneeId=none',
      `statusId=${status}&orderBy=position`, 'priority=high,highest', 'orderBy=priority',
      `projectId=${project.id}&orderBy=dueDate`, 'orderBy=updated', 'type=bug', `boardId=${project.boards[0].id}&limit=2`,
    ];
    for (const query of shapes) {
      const first = await sent(h.runtime.db, () => h.call(ws.token, 'GET', `/tasks?${query}`));
      const again = await sent(h.runtime.db, () => h.call(ws.token, 'GET', `/tasks?${query}`));
      expect(first, `${query}\n${show(first)}`).toHaveLength(2);
      for (const x of first) expect(Boolean(x.name), `${query}\n${show(first)}`).toBe(prepared);
      expect(again.map((x) => x.name), query).toEqual(first.map((x) => x.name));
    }
  });

  it('GET /tasks: text, labels, date or time bounds, a person are planned for their values (the list statement unnamed)', async () => {
    const person = ws.adminUser.id;
    for (const query of ['q=seed', 'label=a', `updatedSince=${Date.now() - 60_000}`, 'dueBefore=2030-01-01', `assigneeId=${person}`, `assigneeId=${person}&category=progress`, `reporterId=${person}`]) {
      const s = await sent(h.runtime.db, () => h.call(ws.token, 'GET', `/tasks?${query}`));
      // The key (and, for a reporter, the person's lookup) named; the list last, unnamed.
      expect(s.length, `${query}\n${show(s)}`).toBeGreaterThanOrEqual(2);
      for (const x of s.slice(0, -1)) expect(Boolean(x.name), `${query}\n${show(s)}`).toBe(prepared);
      expect(s.at(-1)!.sql, query).toMatch(/left join lateral/);
      expect(s.at(-1)!.name, query).toBeUndefined();
    }
  });

  it('POST /tasks on a board: the key, the placement and the insert, all named', async () => {
    const body = { title: 'named', boardId: project.boards[0].id, assigneeIds: [ws.adminUser.id], labels: ['a'] };
    const s = await sent(h.runtime.db, () => h.call(ws.token, 'POST', '/tasks', body));
    for (const part of [/from "api_keys"/, /from "boards"/, /insert into tasks/]) {
      const x = s.find((y) => part.test(y.sql));
      expect(x, `${part}\n${show(s)}`).toBeDefined();
      expect(Boolean(x!.name), `${part}\n${show(s)}`).toBe(prepared);
    }
  });
});
