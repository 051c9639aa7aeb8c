#!/usr/bin/env -S npx tsx
// Lists by label, assignee and text while tasks are being edited, and page search while pages are: what the GIN
// indexes' pending lists cost. Every change of a task is a new index entry in each of its GIN indexes (labels,
// assignees, search: `updated_at` is indexed, so no task update is heap-only), every edit of a page all its lexemes
// again, and with PostgreSQL's default (`fastupdate` on, a 4 MB pending list) those entries wait in an unsorted list
// that every search through the index reads in full, until a vacuum or a full list merges them. The schema's settings
// (migrations 018 and 019) against that default, on one seeded database, alternating: for each, from a vacuumed table,
// EDITS edits through the API (PATCH priority, 10 connections) with their PostgreSQL CPU a write, then each list for
// DURATION s, its rate and PostgreSQL CPU a request, and the pending lists' pages; then the same for PAGES pages of
// 300 words (created once, each edited once a round, then GET /docs?q).
//   pnpm run build && pnpm run bench:gin
// Env: BENCH_SIZES (one size, 20000), BENCH_EDITS (3000; 0 skips tasks), BENCH_PAGES (400; 0 skips pages),
// BENCH_DURATION (s, 4), BENCH_ROUNDS (2), BENCH_KEEP / BENCH_REUSE (as the matrix; the database is
// tt_bench_matrix_<size>), BENCH_DATABASE_URL. Linux only (/proc).
import autocannon from 'autocannon';
import { ADMIN_TOKEN, BENCH_SCOPES, call, cpuMs } from './lib.mjs';
import { withSeededApi } from './seed.mjs';

const SIZE = Number((process.env.BENCH_SIZES ?? '20000').split(',')[0]);
const EDITS = Number(process.env.BENCH_EDITS ?? 3000);
const DURATION = Number(process.env.BENCH_DURATION ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PAGES = Number(process.env.BENCH_PAGES ?? 400);
const INDEXES = ['tasks_labels', 'tasks_assignees', 'tasks_search'];

/** CPU (ms) this database's backends have used so far, by pid. */
async function pgCpu(db) {
  const pids = (await db.raw('select pid from pg_stat_activity where datname = current_database()')).rows.map((r) => r.pid);
  return new Map(pids.map((pid) => [pid, cpuMs(pid)]));
}

/** An autocannon run at 10 connections: its rate, and this database's PostgreSQL CPU (ms) a request. */
async function timed(db, name, opts) {
  const before = await pgCpu(db);
  const r = await autocannon({ connections: 10, ...opts });
  if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} answers not 2xx, ${r.errors} errors`);
  const after = await pgCpu(db);
  const pg = [...after].reduce((s, [pid, ms]) => s + ms - (before.get(pid) ?? 0), 0) / r.requests.total;
  return { rps: Math.round(r.requests.average), pg };
}

/** PostgreSQL's default and this schema's options for `indexes` (as migrated, read once), each a function that sets them. */
async function settingsOf(db, indexes) {
  const schema = new Map();
  for (const index of indexes) schema.set(index, (await db.raw('select reloptions from pg_class where relname = ?', [index])).rows[0]?.reloptions ?? null);
  const reset = async () => { for (const index of indexes) await db.raw(`alter index ${index} reset (fastupdate, gin_pending_list_limit)`); };
  return {
    'PostgreSQL default': reset,
    'this schema': async () => {
      await reset();
      for (const [index, options] of schema) if (options) await db.raw(`alter index ${index} set (${options.join(', ')})`);
    },
  };
}

/** ROUNDS turns of each setting, alternating (A B B A ...). */
const turns = (settings) => Array.from({ length: ROUNDS }, (_, r) => (r % 2 ? Object.entries(settings).reverse() : Object.entries(settings))).flat();

function table(rows) {
  const columns = Object.keys(rows[0]);
  console.log(`| ${columns.join(' | ')} |`);
  console.log(`|${columns.map(() => ' --- |').join('')}`);
  for (const r of rows) console.log(`| ${columns.map((c) => r[c]).join(' | ')} |`);
}

await withSeededApi(`tt_bench_matrix_${SIZE}`, SIZE, async ({ api, db, workspaceId, token }) => {
  await db.raw('create extension if not exists pgstattuple').catch(() => {});
  const pending = async (index) => (await db.raw('select pending_pages from pgstatginindex(?::regclass)', [index]).then((r) => r.rows[0].pending_pages, () => NaN));
  const as = (key) => ({ url: api.base, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
  const shown = ({ rps, pg }) => `${rps} req/s, PG ${pg.toFixed(2)} ms`;

  const settings = await settingsOf(db, INDEXES);
  const keys = await db('tasks').where({ workspace_id: workspaceId }).whereNull('archived_at').orderByRaw('random()').limit(2000).pluck('key');
  const load = await db.raw(
    'select u.id, (select count(*) from tasks t where t.assignee_ids @> array[u.id])::int as n from users u where u.workspace_id = ? order by n desc, u.id',
    [workspaceId],
  );
  const busiest = load.rows[0].id;
  const busiestToken = (await call(api.base, ADMIN_TOKEN, 'POST', `/admin/v1/users/${busiest}/keys`, { scopes: BENCH_SCOPES })).data.token;
  const lists = [
    ['GET /tasks?label=backend,ux', '/v1/tasks?label=backend,ux&limit=100', token],
    ['GET /tasks?assigneeId (busiest)', `/v1/tasks?assigneeId=${busiest}&limit=100`, token],
    ['GET /tasks?assigneeId=me&category=progress', '/v1/tasks?assigneeId=me&category=progress&limit=100', busiestToken],
    ['GET /tasks?q=zeppelin', '/v1/tasks?q=zeppelin&limit=100', token],
  ];
  const rows = [];
  let n = 0;
  try {
    for (const [mode, apply] of EDITS > 0 ? turns(settings) : []) {
      await apply();
      await db.raw('vacuum analyze tasks');
      // The edits: priority back and forth, so titles and the text search's matches stay as seeded.
      const edits = await timed(db, 'task edits', {
        ...as(token), amount: EDITS,
        requests: [{ method: 'PATCH', setupRequest: (req) => ({ ...req, path: `/v1/tasks/${keys[n++ % keys.length]}`, body: JSON.stringify({ priority: n % 2 ? 'high' : 'low' }) }) }],
      });
      const row = { mode, 'edits/s': edits.rps, 'PG ms an edit': edits.pg.toFixed(2), pending: (await Promise.all(INDEXES.map(pending))).join(' / ') };
      for (const [name, path, key] of lists) row[name] = shown(await timed(db, name, { ...as(key), duration: DURATION, requests: [{ method: 'GET', path }] }));
      console.log(JSON.stringify(row));
      rows.push(row);
    }
  } finally {
    await settings['this schema']();
    await db.raw('vacuum analyze tasks');
  }
  if (rows.length) {
    console.log(`\n${SIZE} tasks: ${EDITS} edits (PATCH priority, 10 connections) from a vacuumed table, then each list for ${DURATION} s; pending pages of ${INDEXES.join(' / ')}`);
    table(rows);
  }
  if (PAGES === 0) return;

  // Pages: a page's text is hundreds of lexemes in docs_search, and every edit of it enters them all again.
  const space = (await call(api.base, ADMIN_TOKEN, 'POST', `/admin/v1/workspaces/${workspaceId}/doc-spaces`, { name: 'GIN bench' })).data;
  const WORDS = ['release', 'checklist', 'staging', 'deploy', 'rollback', 'incident', 'review', 'schema', 'migration', 'latency', 'budget', 'owner'];
  const text = (i, edit) => Array.from({ length: 300 }, (_, j) => `${WORDS[(i + j) % WORDS.length]}${(i * 7 + j * 13 + edit) % 997}`).join(' ') + (i % 40 === 0 ? ' walrus' : '');
  const docSettings = await settingsOf(db, ['docs_search']);
  const docRows = [];
  let edit = 0;
  try {
    const pages = [];
    for (let i = 0; i < PAGES; i++) pages.push((await call(api.base, token, 'POST', '/v1/docs', { spaceId: space.id, title: `Runbook ${i}`, text: text(i, 0) })).data.id);
    for (const [mode, apply] of turns(docSettings)) {
      await apply();
      await db.raw('vacuum analyze docs');
      const edits = await timed(db, 'page edits', {
        ...as(token), amount: PAGES,
        requests: [{ method: 'PATCH', setupRequest: (req) => { edit++; return { ...req, path: `/v1/docs/${pages[edit % PAGES]}`, body: JSON.stringify({ text: text(edit % PAGES, edit) }) }; } }],
      });
      const row = { mode, 'edits/s': edits.rps, 'PG ms an edit': edits.pg.toFixed(2), 'pending pages': await pending('docs_search') };
      row['GET /docs?q=walrus'] = shown(await timed(db, 'GET /docs?q', { ...as(token), duration: DURATION, requests: [{ method: 'GET', path: '/v1/docs?q=walrus&limit=50' }] }));
      console.log(JSON.stringify(row));
      docRows.push(row);
    }
  } finally {
    await docSettings['this schema']();
    await db('docs').where({ space_id: space.id }).delete();
    await db('doc_spaces').where({ id: space.id }).delete();
    await db.raw('vacuum analyze docs');
  }
  console.log(`\n${PAGES} pages of 300 words, each edited once a turn (PATCH text, 10 connections) from a vacuumed table, then a search for ${DURATION} s`);
  table(docRows);
});
