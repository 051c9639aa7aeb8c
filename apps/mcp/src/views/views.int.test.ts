import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tasks } from '@tt/domain';
import { callTool, mcpFixture, type McpFixture } from '../test/fixture.js';
import { BOARD_VIEW_URI, TASK_VIEW_URI, viewHtml, VIEW_MIME_TYPE } from './index.js';
import { HOSTILE_TITLE, seedBoard } from './test/seed.js';

/*
 * The views over real HTTP, both protocol eras, without a browser: what tools/list, resources/list and
 * resources/read say about them, and the text show_board answers a client that cannot show a view.
 * views.browser.int.test.ts renders them.
 */

let fx: McpFixture;
let seed: Awaited<ReturnType<typeof seedBoard>>;

beforeAll(async () => {
  fx = await mcpFixture();
  seed = await seedBoard(fx.runtime.deps);
  await fx.start();
}, 120_000);

afterAll(() => fx?.close());

const connect = (era: 'legacy' | 'modern', token = seed.token) => (era === 'legacy' ? fx.connect(token) : fx.connectV2(token, 'pinned'));

describe.each(['legacy', 'modern'] as const)('views (%s era)', (era) => {
  it('tools/list names the views in _meta.ui.resourceUri for every client', async () => {
    const { tools } = await (await connect(era)).listTools();
    const meta = (name: string) => tools.find((t) => t.name === name)?._meta;
    expect(meta('show_board')).toEqual({ ui: { resourceUri: BOARD_VIEW_URI } });
    expect(meta('get_task')).toEqual({ ui: { resourceUri: TASK_VIEW_URI } });
    expect(tools.filter((t) => t._meta).map((t) => t.name).sort()).toEqual(['get_task', 'show_board']);
  });

  it('resources/list offers both views; resources/read answers the bundled document with an empty CSP', async () => {
    const client = await connect(era);
    const { resources } = await client.listResources();
    const views = resources.filter((r) => r.uri.startsWith('ui://'));
    expect(views.map((r) => [r.uri, r.mimeType])).toEqual([[BOARD_VIEW_URI, VIEW_MIME_TYPE], [TASK_VIEW_URI, VIEW_MIME_TYPE]]);
    for (const uri of [BOARD_VIEW_URI, TASK_VIEW_URI]) {
      const { contents } = await client.readResource({ uri });
      expect(contents).toHaveLength(1);
      const [c] = contents as Array<{ uri: string; mimeType: string; text: string; _meta: unknown }>;
      expect(c!.mimeType).toBe(VIEW_MIME_TYPE);
      // Through the answer gate unchanged: the document is the server's own text, not fenced as person-written.
      expect(c!.text).toBe(await viewHtml(uri));
      expect(c!._meta).toEqual({ ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true } });
    }
  });

  it('show_board answers the columns and cards as text, and as structured content for the view', async () => {
    const client = await connect(era);
    const r = await callTool(client, 'show_board', { project: 'web' });
    expect(r.isError, r.text).toBeFalsy();
    for (const line of ['Column To Do', ': 2 cards', 'Column In Progress', 'Column Done', '- WEB-1: Fix the login page (@alice, @bob; due 2026-12-01; labels: bug, web)']) {
      expect(r.text).toContain(line);
    }
    // Person-written text stays inside the block.
    expect(r.text.indexOf(HOSTILE_TITLE)).toBeGreaterThan(r.text.indexOf('<untrusted-text'));
    const s = r.structuredContent as { board: { id: string }; columns: Array<{ name: string; total: number; cards: Array<{ key: string; title: string }> }> };
    expect(s.board.id).toBe(seed.board.id);
    expect(s.columns.map((c) => [c.name, c.total, c.cards.map((t) => t.key)])).toEqual([
      ['To Do', 2, ['WEB-1', 'WEB-2']], ['In Progress', 1, ['WEB-3']], ['Done', 1, ['WEB-4']],
    ]);
    expect(s.columns[0]!.cards[1]!.title).toBe(HOSTILE_TITLE);
    // The same board by its id.
    expect((await callTool(client, 'show_board', { board: seed.board.id })).structuredContent).toEqual(r.structuredContent);
  });

  it('show_board refuses a call naming nothing, or something unknown, with the field and a hint', async () => {
    const client = await connect(era);
    const none = await callTool(client, 'show_board', {});
    expect(none.isError).toBe(true);
    expect(none.text).toMatch(/^invalid_request: board: required/);
    const unknown = await callTool(client, 'show_board', { project: 'NOPE' });
    expect(unknown.text).toMatch(/^not_found: Project NOPE not found.*list_projects/);
  });

  it('get_task answers the same text as before, with the key the task view reads on from', async () => {
    const r = await callTool(await connect(era), 'get_task', { task: seed.notes.key });
    expect(r.text).toMatch(/^# WEB-3/);
    expect(r.structuredContent).toMatchObject({ key: seed.notes.key });
  });
});

describe('views and rights', () => {
  it("the views' MIME type is the one ext-apps names (the server does not load ext-apps at run time)", () => {
    expect(VIEW_MIME_TYPE).toBe(RESOURCE_MIME_TYPE);
  });

  it('a key without tasks:read sees neither the tools nor the views', async () => {
    const { keys } = await import('@tt/domain');
    const alice = (await fx.runtime.deps.store.users.byLogins(seed.actor.workspace.id, ['alice']))[0]!;
    const docsOnly = await keys.issueKey(alice.id, { scopes: ['docs:read'], projectIds: null, expiresAt: null, allowedIps: [] }, fx.runtime.deps);
    const client = await fx.connect(docsOnly.token);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('show_board');
    expect((await client.listResources()).resources.filter((r) => r.uri.startsWith('ui://'))).toEqual([]);
  });
});

describe('show_board reads', () => {
  it('as many statements for a board of 30 cards as for one of 4: a read per column, none per card', async () => {
    const client = await fx.connect(seed.token);
    const count = async () => {
      let n = 0;
      // The outbox relay's polling (its statements name "outbox"; its transactions) runs beside the request.
      const listener = (q: { sql: string }) => void (/"outbox"|^(BEGIN|COMMIT|ROLLBACK)\b/i.test(q.sql) || n++);
      fx.runtime.db.on('query', listener);
      try {
        expect((await callTool(client, 'show_board', { board: seed.board.id })).isError).toBeFalsy();
      } finally {
        fx.runtime.db.off('query', listener);
      }
      return n;
    };
    // Work of other parts of the process (the worker, the relay's wakeups) may land in one count now and then: it only
    // adds, so the fewer of two counts is the request's own.
    const fewest = async () => Math.min(await count(), await count());
    await count();
    const before = await fewest();
    const bob = (await fx.runtime.deps.store.users.byLogins(seed.actor.workspace.id, ['bob']))[0]!;
    for (let i = 0; i < 26; i++) {
      const column = [seed.columns.todo, seed.columns.progress, seed.columns.done][i % 3]!;
      await tasks.createTask(seed.actor, { title: `Card ${i}`, projectId: seed.project.id, statusId: column.id, assigneeIds: [i % 2 ? bob.id : seed.actor.user.id], labels: [`l${i}`] } as never, fx.runtime.deps);
    }
    await fx.runtime.jobs.drain();
    const after = await fewest();
    expect(after).toBe(before);
    const r = await callTool(client, 'show_board', { board: seed.board.id });
    expect((r.structuredContent as { columns: Array<{ cards: unknown[] }> }).columns.reduce((n, c) => n + c.cards.length, 0)).toBe(30);
  });
});
