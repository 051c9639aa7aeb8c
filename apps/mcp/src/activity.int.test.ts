import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVITY_COUNT_CAP, activity, keys, oauth } from '@tt/domain';
import type { McpServerHandle } from './index.js';
import { register, seedWorkspace, signIn } from './oauth/test/flow.js';
import { activityScenario, type ActivityScenario, namesForbidden, type ReaderName } from './test/activity-scenario.js';
import { callTool as call, mcpFixture, type McpFixture } from './test/fixture.js';

// PGlite is one connection: the tests of this file run one after another on one runtime.
let fx: McpFixture;
let mcp: McpServerHandle;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
const redirectUri = 'https://client.example/callback';

beforeAll(async () => {
  fx = await mcpFixture();
  seed = await seedWorkspace(fx.runtime.deps);
  mcp = await fx.start();
}, 180_000);
afterAll(() => fx?.close());

const history = async (ref: string) => {
  const actor = await keys.authenticate({ authorization: `Bearer ${seed.full.token}`, ip: '127.0.0.1', surface: 'api' }, fx.runtime.deps);
  return (await activity.taskActivity(actor, ref, { limit: 100 }, fx.runtime.deps)).data;
};

describe('activity through MCP', () => {
  it('with an API key: every change is recorded as channel mcp with the key, no client name', async () => {
    const client = await fx.connect(seed.full.token);
    const made = await call(client, 'create_task', { title: 'Made by an agent', project: 'WEB', priority: 'high' });
    expect(made.isError, made.text).toBeFalsy();
    const key = (made.structuredContent as any).key as string;
    expect((await call(client, 'update_task', { task: key, priority: 'low', labels: ['agent'] })).isError).toBeFalsy();
    expect((await call(client, 'move_task', { task: key, column: 'done' })).isError).toBeFalsy();
    expect((await call(client, 'add_comment', { task: key, text: 'Done by the agent' })).isError).toBeFalsy();
    expect((await call(client, 'log_time', { task: key, minutes: 15 })).isError).toBeFalsy();
    const entries = await history(key);
    expect(entries.map((e) => e.action)).toEqual(['time.logged', 'comment.created', 'task.moved', 'task.updated', 'task.created']);
    for (const e of entries) expect(e.via).toEqual({ channel: 'mcp', keyId: seed.full.id, clientName: null, automationId: null });
    expect(entries[3]!.changes).toEqual(expect.arrayContaining([{ field: 'priority', from: 'high', to: 'low' }, { field: 'labels', from: [], to: ['agent'] }]));
  });

  it("with an OAuth token: the change names the client's registered name, and the audit log the registration and the grant", async () => {
    const reg = (await (await register(mcp.url, { client_name: 'Claude Desktop', redirect_uris: [redirectUri] })).json()) as { client_id: string };
    const t = await signIn(mcp.url, reg.client_id, redirectUri, seed.full.token);
    const client = await fx.connect(t.access_token);
    const r = await call(client, 'update_task', { task: seed.task.key, title: 'Fix the login page, now' });
    expect(r.isError, r.text).toBeFalsy();
    const [entry] = await history(seed.task.key);
    expect(entry).toMatchObject({
      action: 'task.updated', actor: { id: seed.alice.id, login: 'alice' },
      via: { channel: 'mcp', keyId: seed.full.id, clientName: 'Claude Desktop' },
      changes: [{ field: 'title', from: 'Fix the login page', to: 'Fix the login page, now' }],
    });

    const audit = (await activity.listAudit({ limit: 100 }, fx.runtime.deps)).data;
    expect(audit.find((a) => a.action === 'oauth.client_registered')).toMatchObject({
      actor: { kind: 'anonymous' }, target: { type: 'oauth_client', id: reg.client_id }, details: { name: 'Claude Desktop' },
    });
    const grant = audit.find((a) => a.action === 'oauth.grant_made')!;
    expect(grant).toMatchObject({ workspaceId: seed.ws.id, actor: { kind: 'user', id: seed.alice.id }, via: { channel: 'mcp', clientName: 'Claude Desktop' } });
    await oauth.revokeGrant(grant.target.id, fx.runtime.deps);
    const revoked = (await activity.listAudit({ limit: 100, action: 'oauth.grant_revoked' }, fx.runtime.deps)).data;
    expect(revoked[0]).toMatchObject({ actor: { kind: 'operator' }, target: { id: grant.target.id }, details: { by: 'operator' } });
    expect(JSON.stringify(audit)).not.toContain(t.access_token);
    expect(JSON.stringify(audit)).not.toContain(t.refresh_token);
  });

  it('list_activity answers "what changed since ... in WEB" in one call, fenced, with filters and a cursor', async () => {
    const client = await fx.connect(seed.full.token);
    const r = await call(client, 'list_activity', { since: '2000-01-01T00:00', project: 'WEB', limit: 3 });
    expect(r.isError, r.text).toBeFalsy();
    expect(r.text).toContain('<untrusted-text kind="table">');
    expect(r.text).toContain('Claude Desktop');
    expect(r.text).toMatch(/title: Fix the login page → Fix the login page, now/);
    const index = r.structuredContent as any;
    expect(index.shown).toBe(3);
    expect(index.nextCursor).toBeTruthy();
    const next = await call(client, 'list_activity', { since: '2000-01-01T00:00', project: 'WEB', limit: 3, cursor: index.nextCursor, format: 'json' });
    const entries = (next.structuredContent as any).entries as any[];
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((e) => !index.ids.includes(e.id))).toBe(true);

    const mine = await call(client, 'list_activity', { person: 'me', task: seed.task.key, format: 'json' });
    expect((mine.structuredContent as any).entries.every((e: any) => e.task.key === seed.task.key && e.actor.login === 'alice')).toBe(true);
    expect((await call(client, 'list_activity', { since: '2999-01-01' })).text).toContain('No activity');
    const bad = await call(client, 'list_activity', { since: 'last monday' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('since');
    expect((await call(client, 'list_activity', { project: 'NOPE' })).isError).toBe(true);
  });

  it('get_task shows the latest 20 entries when sections names history, and none by default', async () => {
    const client = await fx.connect(seed.full.token);
    const made = await call(client, 'create_task', { title: 'Busy task', project: 'WEB' });
    const key = (made.structuredContent as any).key as string;
    for (let i = 0; i < 22; i++) await call(client, 'update_task', { task: key, priority: i % 2 ? 'high' : 'low' });
    const md = await call(client, 'get_task', { task: key, sections: ['history'] });
    expect(md.isError, md.text).toBeFalsy();
    expect(md.text).toContain('## History (latest 20, newest first');
    expect(md.text).toMatch(/priority: high → low/);
    expect(md.text).not.toContain('## Comments');
    const json = await call(client, 'get_task', { task: key, sections: ['history'], format: 'json' });
    const history = (json.structuredContent as any).history as any[];
    expect(history).toHaveLength(20);
    expect(history[0]).toMatchObject({ action: 'task.updated', via: { channel: 'mcp', keyId: seed.full.id } });
    expect((await call(client, 'get_task', { task: key })).text).not.toContain('## History');
  });

  it("one clock: get_task (comments, history) and list_activity show the same event at the same time, in the workspace's zone with its offset", async () => {
    const client = await fx.connect(seed.full.token);
    const made = await call(client, 'create_task', { title: 'Clocked', project: 'WEB' });
    const key = (made.structuredContent as any).key as string;
    expect((await call(client, 'add_comment', { task: key, text: 'What time is it?' })).isError).toBeFalsy();
    // The seed's workspace is in Europe/Moscow: UTC+3 all year.
    const moscow = (ms: number) => `${new Date(ms + 3 * 3_600_000).toISOString().slice(0, 16).replace('T', ' ')} +03:00`;
    const entries = await history(key);
    const commented = entries.find((e) => e.action === 'comment.created')!;
    const created = entries.find((e) => e.action === 'task.created')!;
    // A table row's first cell, for the row of an action.
    const when = (text: string, action: string) => text.split('\n').find((l) => l.startsWith('| ') && l.includes(` | ${action} | `))?.split(' | ')[0]!.slice(2);

    const task = await call(client, 'get_task', { task: key, sections: ['comments', 'history'] });
    expect(task.isError, task.text).toBeFalsy();
    const listed = await call(client, 'list_activity', { task: key, since: '2000-01-01' });
    expect(listed.isError, listed.text).toBeFalsy();
    for (const e of [commented, created]) {
      expect(when(task.text, e.action)).toBe(moscow(e.at));
      expect(when(listed.text, e.action)).toBe(moscow(e.at));
    }
    const json = await call(client, 'get_task', { task: key, sections: ['comments'], format: 'json' });
    const comment = (json.structuredContent as any).commentList[0];
    expect(task.text).toContain(`at ${moscow(comment.createdAt)}`);
    expect(task.text).toMatch(/\*\*Created \/ updated:\*\* \d{4}-\d{2}-\d{2} \d{2}:\d{2} \+03:00 \/ \d{4}-\d{2}-\d{2} \d{2}:\d{2} \+03:00/);
    // Structured content keeps epoch milliseconds, for programs.
    expect(typeof comment.createdAt).toBe('number');
    const one = await call(client, 'get_task', { task: key, commentId: comment.id });
    expect(one.text).toContain(`at ${moscow(comment.createdAt)}`);
    expect(`${task.text}${listed.text}${one.text}`).not.toContain('UTC');
  });

  it('search_tasks takes createdSince and createdBefore', async () => {
    const client = await fx.connect(seed.full.token);
    const before = Date.now();
    await new Promise((r) => setTimeout(r, 20));
    const made = await call(client, 'create_task', { title: 'Brand new', project: 'WEB' });
    const key = (made.structuredContent as any).key as string;
    const since = await call(client, 'search_tasks', { project: 'WEB', createdSince: String(before), format: 'json' });
    expect(since.isError, since.text).toBeFalsy();
    expect(JSON.stringify(since.structuredContent)).toContain(key);
    expect(JSON.stringify(since.structuredContent)).not.toContain(seed.task.key);
    const older = await call(client, 'search_tasks', { project: 'WEB', createdBefore: String(before), format: 'json' });
    expect(JSON.stringify(older.structuredContent)).toContain(seed.task.key);
    expect(JSON.stringify(older.structuredContent)).not.toContain(key);
    const bad = await call(client, 'search_tasks', { createdSince: 'soonish' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('createdSince');
  });

  it(`list_activity says "more than" when the feed's count stops at ${ACTIVITY_COUNT_CAP}`, async () => {
    const client = await fx.connect(seed.full.token);
    const t = seed.task;
    await fx.runtime.db.raw(
      `insert into activity (id, workspace_id, at, actor_id, channel, key_id, project_id, board_id, task_id, task_key, action, changes)
       select 'act_mcp_cap_' || g, ?, ?::bigint - g * 1000, ?, 'rest', ?, ?, ?, ?, ?, 'task.updated', '[]'::jsonb from generate_series(1, ?) g`,
      [seed.ws.id, t.createdAt, seed.alice.id, seed.full.id, t.projectId, t.boardId, t.id, t.key, ACTIVITY_COUNT_CAP + 1],
    );
    const md = await call(client, 'list_activity', { task: t.key, since: '2000-01-01', limit: 5 });
    expect(md.isError, md.text).toBeFalsy();
    expect(md.text).toContain(`5 of more than ${ACTIVITY_COUNT_CAP} entries shown`);
    const json = await call(client, 'list_activity', { task: t.key, since: '2000-01-01', limit: 5, format: 'json' });
    expect(json.structuredContent).toMatchObject({ total: ACTIVITY_COUNT_CAP, totalCapped: true, shown: 5 });
  });
});

// Issue 51: list_activity and get_task's history show an entry, and every id or title in its changes, only to a reader
// who could read that object itself (the same scenario as REST's activity-visibility test).
describe('list_activity shows only what the reader could read', () => {
  let s: ActivityScenario;
  beforeAll(async () => {
    s = await activityScenario(fx.runtime.deps);
  }, 120_000);

  /** Every entry list_activity gives `reader`, `limit` at a time (JSON), checking that each page but the last is full. */
  const feed = async (reader: ReaderName, args: Record<string, unknown> = {}, limit = 4) => {
    const client = await fx.connect(s.readers[reader].token);
    const entries: any[] = [];
    let cursor: string | undefined;
    let total: number;
    do {
      const r = await call(client, 'list_activity', { ...args, limit, format: 'json', ...(cursor ? { cursor } : {}) });
      expect(r.isError, r.text).toBeFalsy();
      const page = r.structuredContent as any;
      if (page.nextCursor) expect(page.entries).toHaveLength(limit);
      total = page.total;
      entries.push(...page.entries);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(entries).toHaveLength(total);
    return entries;
  };
  const docIdsChanges = (entries: any[]) => entries.flatMap((e) => e.changes.filter((c: any) => c.field === 'docIds'));

  it('a key without docs:read sees no page entry and no page id; without meetings:read no meeting entry', async () => {
    const noDocs = await feed('noDocs');
    expect(noDocs.filter((e) => e.doc !== null)).toEqual([]);
    expect(docIdsChanges(noDocs)).toEqual([]);
    expect((await feed('admin')).filter((e) => e.doc !== null).length).toBeGreaterThan(0);
    const noMeetings = await feed('noMeetings');
    expect(noMeetings.filter((e) => e.action === 'task.created_from_agreement')).toEqual([]);
    const text = (await call(await fx.connect(s.readers.noMeetings.token), 'list_activity', { limit: 100 })).text;
    expect(text).toContain('task.created');
    expect(namesForbidden(s.readers.noMeetings, text)).toBeUndefined();
  });

  it("a project-restricted key sees no task of another project in a page's taskIds", async () => {
    const created = (await feed('restricted')).find((e) => e.action === 'doc.created' && e.doc.id === s.ids.openPage);
    expect(created.changes.find((c: any) => c.field === 'taskIds')).toEqual({ field: 'taskIds', from: [], to: [s.tasks.web.id, s.ids.secret] });
  });

  it("a member outside a closed doc space sees none of its pages in a task's docIds", async () => {
    const entries = await feed('outsideSpace', { task: s.tasks.web.key });
    expect(docIdsChanges(entries).map((c) => c.to)).toEqual([s.ids.openPage]);
    expect(docIdsChanges(await feed('admin', { task: s.tasks.web.key })).map((c) => c.to)).toEqual([s.ids.closedPage, s.ids.openPage]);
  });

  it('walks every reader: neither list_activity (JSON and text) nor get_task history names an object the reader may not read', async () => {
    for (const reader of Object.keys(s.readers) as ReaderName[]) {
      const entries = await feed(reader, {}, 3);
      expect(namesForbidden(s.readers[reader], entries), `${reader}: list_activity`).toBeUndefined();
      const client = await fx.connect(s.readers[reader].token);
      const text = (await call(client, 'list_activity', { limit: 100 })).text;
      expect(namesForbidden(s.readers[reader], text), `${reader}: list_activity text`).toBeUndefined();
      const deleted = new Set(entries.filter((e) => e.action === 'task.deleted').map((e) => e.task.key));
      for (const key of new Set(entries.flatMap((e) => (e.task && !deleted.has(e.task.key) ? [e.task.key] : [])))) {
        const r = await call(client, 'get_task', { task: key, sections: ['history'], format: 'json' });
        expect(r.isError, r.text).toBeFalsy();
        expect(namesForbidden(s.readers[reader], (r.structuredContent as any).history), `${reader}: get_task ${key} history`).toBeUndefined();
      }
    }
  });
});
