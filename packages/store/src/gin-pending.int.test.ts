import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from './testing.js';

/*
 * Edits must not leave a label, assignee or text search reading a long list of unmerged index entries (migrations
 * 018 and 019): labels and assignees go straight into their GIN indexes, and the pending lists of tasks', pages' and
 * meetings' text stay within 64 kB.
 * gin_clean_pending_list merges a GIN index's pending list and says how many pages it held.
 */

let db: Knex;
let close: () => Promise<void>;
const TASKS = 300;
const PAGES = 40;
const T0 = Date.UTC(2025, 0, 1);
const WORDS = ['release', 'checklist', 'staging', 'deploy', 'rollback', 'incident', 'review', 'schema', 'migration', 'latency'];
/** 300 words, most of them a lexeme of their own; `edit` changes which. */
const pageText = (i: number, edit: number) => Array.from({ length: 300 }, (_, j) => `${WORDS[(i + j) % WORDS.length]}${(i * 7 + j * 13 + edit) % 997}`).join(' ');

beforeAll(async () => {
  ({ db, close } = await openTestDatabase());
  await db('workspaces').insert({ id: 'ws_gin', name: 'Gin', plan: 'business', timezone: 'UTC', created_at: T0 });
  await db('users').insert(['usr_gin_a', 'usr_gin_b'].map((id) => ({ id, workspace_id: 'ws_gin', name: id, login: id, role: '', created_at: T0 })));
  await db('projects').insert({ id: 'prj_gin', workspace_id: 'ws_gin', key: 'GIN', name: 'Gin', created_at: T0 });
  await db('boards').insert({ id: 'brd_gin', workspace_id: 'ws_gin', project_id: 'prj_gin', name: 'Board', member_ids: null });
  await db('statuses').insert({ id: 'sts_gin', board_id: 'brd_gin', name: 'To do', category: 'todo', position: 0 });
  await db('tasks').insert(Array.from({ length: TASKS }, (_, i) => ({
    id: `task_gin_${i}`, workspace_id: 'ws_gin', project_id: 'prj_gin', board_id: 'brd_gin', status_id: 'sts_gin', number: i + 1,
    key: `GIN-${i + 1}`, title: `Tune the zeppelin engine number ${i}`, type: 'task', priority: 'medium',
    assignee_id: 'usr_gin_a', assignee_ids: ['usr_gin_a', 'usr_gin_b'], reporter_id: 'usr_gin_a', labels: ['backend', `label-${i % 7}`],
    description_text: `Steps to reproduce case ${i}: open the hangar, start the engine, listen`, rank: (i + 1) * 1024,
    created_at: T0, updated_at: T0,
  })));
  await db('doc_spaces').insert({ id: 'spc_gin', workspace_id: 'ws_gin', name: 'Runbooks', created_at: T0 });
  await db('docs').insert(Array.from({ length: PAGES }, (_, i) => ({
    id: `doc_gin_${i}`, workspace_id: 'ws_gin', space_id: 'spc_gin', path: `spc_gin/doc_gin_${i}`, title: `Runbook ${i}`,
    text: pageText(i, 0), author_id: 'usr_gin_a', created_at: T0, updated_at: T0,
  })));
  for (const index of ['tasks_labels', 'tasks_assignees', 'tasks_search', 'docs_search']) await db.raw('select gin_clean_pending_list(?::regclass)', [index]);
});
afterAll(() => close());

const pendingPages = async (index: string) => Number((await db.raw('select gin_clean_pending_list(?::regclass) as pages', [index])).rows[0].pages);

describe('GIN indexes under edits', () => {
  it('leave no pending entries for labels and assignees, and at most 64 kB for the text, after every task was edited three times', async () => {
    for (let round = 1; round <= 3; round++) {
      // One statement per task, as the service edits them: each update is new entries in every index of the row.
      for (let i = 0; i < TASKS; i++) {
        await db('tasks').where({ id: `task_gin_${i}` }).update({ priority: round % 2 ? 'high' : 'low', updated_at: T0 + round * 1000 + i });
      }
    }
    expect(await pendingPages('tasks_labels')).toBe(0);
    expect(await pendingPages('tasks_assignees')).toBe(0);
    // 64 kB is eight pages; PostgreSQL's default list (4 MB) would still hold every entry of the 900 edits.
    expect(await pendingPages('tasks_search')).toBeLessThanOrEqual(8);
  });

  it('keep the pending list of pages\' text within 64 kB while every page is edited three times', async () => {
    for (let edit = 1; edit <= 3; edit++) {
      for (let i = 0; i < PAGES; i++) await db('docs').where({ id: `doc_gin_${i}` }).update({ text: pageText(i, edit), updated_at: T0 + edit * 1000 + i });
    }
    expect(await pendingPages('docs_search')).toBeLessThanOrEqual(8);
  });

  it('keeps the settings in the schema', async () => {
    const options = (await db.raw(
      "select relname, reloptions from pg_class where relname in ('tasks_labels', 'tasks_assignees', 'tasks_search', 'docs_search', 'meetings_search') order by relname",
    )).rows.map((r: { relname: string; reloptions: string[] | null }) => [r.relname, r.reloptions]);
    expect(options).toEqual([
      ['docs_search', ['gin_pending_list_limit=64']],
      ['meetings_search', ['gin_pending_list_limit=64']],
      ['tasks_assignees', ['fastupdate=off']],
      ['tasks_labels', ['fastupdate=off']],
      ['tasks_search', ['gin_pending_list_limit=64']],
    ]);
  });
});
