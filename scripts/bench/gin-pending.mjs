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
const spent = (before, after) => [...after].reduce((s, [pid, ms]) => s + ms - (before.get(pid) ?? 0), 0);

await withSeededApi(`tt_bench_matrix_${SIZE}`, SIZE, async ({ api, db, workspaceId, token }) => {
  await db.raw('create extension if not exists pgstattuple').catch(() => {});
  const pending = async (index) => (await db.raw('select pending_pages from pgstatginindex(?::regclass)', [index]).then((r) => r.rows[0].pending_pages, () => NaN));
  const schema = new Map();
  for (const index of INDEXES) schema.set(index, (await db.raw('select reloptions from pg_class where relname = ?', [index])).rows[0]?.reloptions ?? null);
  const settings = {
    'PostgreSQL default': async () => { for (const index of INDEXES) await db.raw(`alter index ${index} reset (fastupdate, gin_pending_list_limit)`); },
    'this schema': async () => {
      for (const [index, options] of schema) {
        await db.raw(`alter index ${index} reset (fastupdate, gin_pending_list_limit)`);
        if (options) await db.raw(`alter index ${index} set (${options.join(', ')})`);
      }
    },
  };
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
    for (let round = 0; round < (EDITS > 0 ? ROUNDS : 0); round++) {
      const order = Object.entries(settings);
      for (const [mode, apply] of round % 2 ? [...order].reverse() : order) {
        await apply();
        await db.raw('vacuum analyze tasks');
        // The edits: priority back and forth, so titles and the text search's matches stay as seeded.
        let before = await pgCpu(db);
        const edits = await autocannon({
          url: api.base, connections: 10, amount: EDITS, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          requests: [{ method: 'PATCH', setupRequest: (req) => ({ ...req, path: `/v1/tasks/${keys[n++ % keys.length]}`, body: JSON.stringify({ priority: n % 2 ? 'high' : 'low' }) }) }],
        });
        const editCpu = spent(before, await pgCpu(db)) / EDITS;
        if (edits.non2xx) throw new Error(`${edits.non2xx} edits failed`);
        const pages = Object.fromEntries(await Promise.all(INDEXES.map(async (i) => [i, await pending(i)])));
        const row = { mode, round, 'edits/s': Math.round(edits.requests.average), 'PG ms an edit': editCpu.toFixed(2), pending: INDEXES.map((i) => pages[i]).join(' / ') };
        for (const [name, path, as] of lists) {
          before = await pgCpu(db);
          const r = await autocannon({ url: api.base, connections: 10, duration: DURATION, headers: { authorization: `Bearer ${as}` }, requests: [{ method: 'GET', path }] });
          if (r.non2xx) throw new Error(`${name}: ${r.non2xx} failed`);
          row[name] = `${Math.round(r.requests.average)} req/s, PG ${(spent(before, await pgCpu(db)) / r.requests.total).toFixed(2)} ms`;
        }
        console.log(JSON.stringify(row));
        rows.push(row);
      }
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
  const pages = [];
  for (let i = 0; i < PAGES; i++) pages.push((await call(api.base, token, 'POST', '/v1/docs', { spaceId: space.id, title: `Runbook ${i}`, text: text(i, 0) })).data.id);
  const docSchema = (await db.raw("select reloptions from pg_class where relname = 'docs_search'")).rows[0]?.reloptions ?? null;
  const docSettings = {
    'PostgreSQL default': () => db.raw('alter index docs_search reset (fastupdate, gin_pending_list_limit)'),
    'this schema': async () => {
      await db.raw('alter index docs_search reset (fastupdate, gin_pending_list_limit)');
      if (docSchema) await db.raw(`alter index docs_search set (${docSchema.join(', ')})`);
    },
  };
  const docRows = [];
  let edit = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order = Object.entries(docSettings);
      for (const [mode, apply] of round % 2 ? [...order].reverse() : order) {
        await apply();
        await db.raw('vacuum analyze docs');
        let before = await pgCpu(db);
        const edits = await autocannon({
          url: api.base, connections: 10, amount: PAGES, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          requests: [{ method: 'PATCH', setupRequest: (req) => { edit++; return { ...req, path: `/v1/docs/${pages[edit % PAGES]}`, body: JSON.stringify({ text: text(edit % PAGES, edit) }) }; } }],
        });
        if (edits.non2xx) throw new Error(`${edits.non2xx} page edits failed`);
        const row = { mode, 'edits/s': Math.round(edits.requests.average), 'PG ms an edit': (spent(before, await pgCpu(db)) / PAGES).toFixed(2), 'pending pages': await pending('docs_search') };
        before = await pgCpu(db);
        const r = await autocannon({ url: api.base, connections: 10, duration: DURATION, headers: { authorization: `Bearer ${token}` }, requests: [{ method: 'GET', path: '/v1/docs?q=walrus&limit=50' }] });
        if (r.non2xx) throw new Error(`GET /docs?q: ${r.non2xx} failed`);
        row['GET /docs?q=walrus'] = `${Math.round(r.requests.average)} req/s, PG ${(spent(before, await pgCpu(db)) / r.requests.total).toFixed(2)} ms`;
        console.log(JSON.stringify(row));
        docRows.push(row);
      }
    }
  } finally {
    await docSettings['this schema']();
    await db('docs').where({ space_id: space.id }).delete();
    await db('doc_spaces').where({ id: space.id }).delete();
    await db.raw('vacuum analyze docs');
  }
  console.log(`\n${PAGES} pages of 300 words, each edited once (PATCH text, 10 connections) from a vacuumed table, then a search for ${DURATION} s`);
  table(docRows);
});

function table(rows) {
  const columns = Object.keys(rows[0]).filter((c) => c !== 'round');
  console.log(`| ${columns.join(' | ')} |`);
  console.log(`|${columns.map(() => ' --- |').join('')}`);
  for (const r of rows) console.log(`| ${columns.map((c) => r[c]).join(' | ')} |`);
}
