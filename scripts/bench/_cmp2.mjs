import { startBuiltApi, call, ADMIN_TOKEN, BENCH_SCOPES, databaseUrl } from './lib.mjs';
import pg from 'pg';
const db = process.argv[2];
const api = await startBuiltApi(db);
const c = new pg.Client(databaseUrl(db)); await c.connect();
const u = (await c.query("select id, workspace_id from users where login='bench'")).rows;
console.log(u);
const tok = (await call(api.base, ADMIN_TOKEN, 'POST', `/admin/v1/users/${u[0].id}/keys`, { scopes: BENCH_SCOPES })).data.token;
for (const q of process.argv.slice(3)) for (let i = 0; i < 3; i++) {
  const t = Date.now();
  const r = await fetch(`${api.base}/v1/tasks?${q}`, { headers: { authorization: `Bearer ${tok}` } });
  const body = await r.text();
  console.log(q, r.status, Date.now() - t, 'ms', body.slice(0, 200));
}
await api.stop(); await c.end();
