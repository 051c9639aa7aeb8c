import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  activity, ActivityQuery, type Actor, type Category, comments, CreateDocSpaceInput, CreateMeetingInput, docs, keys, ListMeetingsQuery, ListTasksQuery, meetings, people,
  projects, type Scope, SCOPES, tasks,
} from '@tt/domain';
import { callTool, mcpFixture, type McpFixture } from './test/fixture.js';
import { searchInOrder } from './search.js';
import { cuttable } from './answer/answer.js';

/*
 * Long texts read to their last word over the SDK client: get_task cuts only when the whole answer would pass the
 * budget, and every cut names the exact call that reads on (the note in the text, nextOffset in structured content).
 */

const BUDGET = 20_000;
/** Numbered words up to `length` characters, so a lost, doubled or reordered piece shows. */
const words = (prefix: string, length: number): string => {
  const out: string[] = [];
  for (let i = 1, n = 0; n < length; i++) {
    const w = `${prefix}${String(i).padStart(5, '0')}`;
    out.push(w);
    n += w.length + 1;
  }
  return out.join(' ').slice(0, length).replace(/\s+\S*$/, '');
};

let fx: McpFixture;
let client: Client;
const DESCRIPTION = words('d', 30_000);
const COMMENT = words('c', 18_000);
let longKey: string;
let commentedKey: string;
let commentId: string;
let actor: Actor;

beforeAll(async () => {
  fx = await mcpFixture();
  const deps = fx.runtime.deps;
  const ws = await people.createWorkspace({ name: 'Acme', plan: 'business', timezone: 'UTC' }, deps);
  const alice = await people.createUser(ws.id, { name: 'Alice', login: 'alice', role: '', isAdmin: true }, deps);
  const key = await keys.issueKey(alice.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps);
  actor = {
    workspace: { id: ws.id, name: ws.name, plan: ws.plan, timezone: ws.timezone, memberKeysEnabled: true },
    user: { ...alice, workspaceId: ws.id, deletedAt: null },
    key: { id: key.id, scopes: key.scopes as Scope[], projectIds: null },
  };
  const project = await projects.createProject(actor, { name: 'Website', key: 'WEB', description: '', template: 'simple' }, deps);
  longKey = (await tasks.createTask(actor, { title: 'Long spec', projectId: project.id, descriptionText: DESCRIPTION }, deps)).key;
  const commented = await tasks.createTask(actor, { title: 'Long discussion', projectId: project.id, descriptionText: words('s', 4000) }, deps);
  commentedKey = commented.key;
  await comments.addComment(actor, commented.id, { text: 'a short one first' }, deps);
  commentId = (await comments.addComment(actor, commented.id, { text: COMMENT }, deps)).id;
  await fx.start();
  client = await fx.connect(key.token);
}, 120_000);

afterAll(() => fx?.close());

/**
 * Pages through `tool` at limit 100 with `args`, each answer within the budget and naming its cursor: the ids
 * (`idsOf` the structured content) in order, and for each page how often the store's `list` of `repo` was called (it
 * is spied on, not replaced: the real store answers), how many items it showed and its text's length.
 */
const pageThrough = async (
  tool: string, args: Record<string, unknown>, repo: 'tasks' | 'docs' | 'meetings' | 'activity', idsOf: (sc: any) => string[],
) => {
  const list = vi.spyOn(fx.runtime.deps.store[repo], 'list');
  const ids: string[] = [];
  const reads: number[] = [];
  const shown: number[] = [];
  const lengths: number[] = [];
  try {
    let cursor: string | undefined;
    for (let calls = 0; calls < 20; calls++) {
      list.mockClear();
      const r = await callTool(client, tool, { ...args, limit: 100, ...(cursor ? { cursor } : {}) });
      expect(r.isError, r.text).toBeFalsy();
      expect(r.text.length).toBeLessThanOrEqual(BUDGET);
      reads.push(list.mock.calls.length);
      const page = idsOf(r.structuredContent);
      ids.push(...page);
      shown.push(page.length);
      lengths.push(r.text.length);
      const next = (r.structuredContent as { nextCursor: string | null }).nextCursor;
      if (!next) break;
      expect(r.text).toContain(next);
      cursor = next;
    }
  } finally {
    list.mockRestore();
  }
  return { ids, reads, shown, lengths };
};

/** The text of the one block of `kind` in an answer. */
const block = (text: string, kind: string): string => {
  const m = new RegExp(`<untrusted-text kind="${kind}"[^>]*>\\n([\\s\\S]*?)\\n</untrusted-text>`).exec(text);
  expect(m, `a ${kind} block in:\n${text.slice(0, 500)}`).not.toBeNull();
  return m![1]!;
};

/** The call a cut note names, parsed: `get_task {task: "WEB-1", commentId: "...", offset: N}`. */
const noteCall = (text: string): { task: string; commentId?: string; offset: number } | null => {
  const m = /read on with get_task \{task: "([^"]+)", (?:commentId: "([^"]+)", )?offset: (\d+)\}\]/.exec(text);
  return m ? { task: m[1]!, ...(m[2] ? { commentId: m[2] } : {}), offset: Number(m[3]) } : null;
};

const split = (s: string) => s.split(/\s+/).filter(Boolean);

describe('get_task reads long texts to the end', () => {
  it('a 30 000-character description, through the cut notes, to its last word', async () => {
    let r = await callTool(client, 'get_task', { task: longKey });
    expect(r.text.length).toBeLessThanOrEqual(BUDGET);
    let read = block(r.text, 'description');
    let calls = 1;
    for (let next = noteCall(r.text); next; next = noteCall(r.text)) {
      expect(next.task).toBe(longKey);
      expect((r.structuredContent as { nextOffset: number }).nextOffset).toBe(next.offset);
      r = await callTool(client, 'get_task', next);
      expect(r.isError).toBeFalsy();
      expect(r.text.length).toBeLessThanOrEqual(BUDGET);
      read += block(r.text, 'description');
      calls++;
    }
    expect((r.structuredContent as { nextOffset: number | null }).nextOffset).toBeNull();
    expect(split(read)).toEqual(split(DESCRIPTION));
    expect(read.trimEnd().endsWith(split(DESCRIPTION).at(-1)!)).toBe(true);
    expect(calls).toBe(2);
  });

  it('the same in format json, by structuredContent.nextOffset', async () => {
    let offset: number | null = 0;
    let read = '';
    while (offset !== null) {
      const r = await callTool(client, 'get_task', { task: longKey, offset, format: 'json' });
      expect(r.text.length).toBeLessThanOrEqual(BUDGET);
      const sc = r.structuredContent as { description: string; nextOffset: number | null; length: number };
      read += sc.description;
      offset = sc.nextOffset;
    }
    expect(split(read)).toEqual(split(DESCRIPTION));
  });

  it('an 18 000-character comment: cut in the task, then read in full by commentId', async () => {
    const r = await callTool(client, 'get_task', { task: commentedKey });
    expect(r.text.length).toBeLessThanOrEqual(BUDGET);
    // The whole task does not fit, so comments fall back to 1 500 characters each; the description stays whole.
    expect(noteCall(block(r.text, 'description'))).toBeNull();
    const cut = (r.structuredContent as { comments: { cut: Array<{ id: string; nextOffset: number }> } }).comments.cut;
    expect(cut.map((c) => c.id)).toEqual([commentId]);
    let next = noteCall(r.text);
    expect(next).toEqual({ task: commentedKey, commentId, offset: cut[0]!.nextOffset });
    let read = new RegExp(`<untrusted-text kind="comment" id="${commentId}"[^>]*>\\n([\\s\\S]*?)\\n</untrusted-text>`).exec(r.text)![1]!;
    let calls = 0;
    while (next) {
      const part = await callTool(client, 'get_task', next);
      expect(part.isError).toBeFalsy();
      expect(part.text.length).toBeLessThanOrEqual(BUDGET);
      read += block(part.text, 'comment');
      next = noteCall(part.text);
      calls++;
      if (!next) expect(part.text).toContain('End of the comment.');
    }
    expect(calls).toBe(1);
    expect(split(read)).toEqual(split(COMMENT));
    // From the start, the comment alone fits one answer.
    const whole = await callTool(client, 'get_task', { task: commentedKey, commentId });
    expect(split(block(whole.text, 'comment'))).toEqual(split(COMMENT));
    expect((whole.structuredContent as { nextOffset: number | null }).nextOffset).toBeNull();
  });

  it('answers a task that fits whole without any cut', async () => {
    const r = await callTool(client, 'get_task', { task: commentedKey, sections: ['comments'], comments: 1 });
    expect(r.text).not.toContain('more characters cut');
    expect(split(block(r.text, 'comment'))).toEqual(split(COMMENT));
  });

  it('the task:// resource names the same continuation', async () => {
    const read = await client.readResource({ uri: `task://${longKey}` });
    const text = (read.contents[0] as { text: string }).text;
    expect(text.length).toBeLessThanOrEqual(BUDGET);
    const next = noteCall(text);
    expect(next?.task).toBe(longKey);
    const r = await callTool(client, 'get_task', next!);
    expect(split(block(text, 'description') + block(r.text, 'description'))).toEqual(split(DESCRIPTION));
  });

  it('refuses a comment of another task as not found', async () => {
    const r = await callTool(client, 'get_task', { task: longKey, commentId });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^not_found: commentId: comment \S+ of task WEB-1 not found/);
  });
});

describe('search_tasks reads a list longer than the budget to its end', () => {
  const TASKS = 120;
  /** alice's open tasks in the default order: in progress first, then to do, each oldest first. */
  let open: string[];
  let projectKey: string;
  let projectId: string;

  beforeAll(async () => {
    const deps = fx.runtime.deps;
    const project = await projects.createProject(actor, { name: 'Long list', key: 'LST', description: '', template: 'simple' }, deps);
    projectKey = project.key;
    projectId = project.id;
    const statuses = project.boards[0]!.statuses;
    const progress = statuses.find((s) => s.category === 'progress')!;
    const done = statuses.find((s) => s.category === 'done')!;
    const priorities = ['highest', 'high', 'medium', 'low', 'lowest'] as const;
    const inProgress: string[] = [];
    const toDo: string[] = [];
    for (let i = 0; i < TASKS; i++) {
      // Long titles: 100 rows are about twice the budget, so every first page is cut.
      const statusId = i % 4 === 1 ? progress.id : i % 10 === 7 ? done.id : undefined;
      const t = await tasks.createTask(actor, {
        title: words(`t${i}w`, 300), projectId: project.id, assigneeIds: [actor.user.id], ...(statusId ? { statusId } : {}),
        priority: priorities[i % 5], ...(i % 3 ? { dueDate: `2027-0${1 + (i % 9)}-1${i % 10}` } : {}),
      }, deps);
      if (statusId === progress.id) inProgress.push(t.key);
      else if (statusId !== done.id) toDo.push(t.key);
    }
    open = [...inProgress, ...toDo];
  }, 120_000);

  /** Pages through search_tasks with `args` at limit 100: the keys in order, and the list queries each page made. */
  const readAll = (args: Record<string, unknown>) =>
    pageThrough('search_tasks', args, 'tasks', (sc) => sc.tasks.map((t: { key: string }) => t.key));

  it('my open tasks (in progress, then to do): every task once, in order, each page one read of each query', async () => {
    const { ids, reads: queries, shown, lengths } = await readAll({});
    expect(ids).toEqual(open);
    // Full pages: as many rows as the budget holds (a row here is under 500 characters), not an estimate short of it.
    for (const n of lengths.slice(0, -1)) expect(n).toBeGreaterThan(BUDGET - 1000 - 500);
    // A first page cut to the budget: fewer than asked for, the rest on later pages.
    expect(shown[0]).toBeLessThan(open.length);
    expect(shown.length).toBeGreaterThan(1);
    // Two queries a page (in progress, then to do): the cut page is not read again.
    expect(queries.every((n) => n === 2)).toBe(true);
  });

  it.each([
    ['created', {}],
    ['priority', { order: 'priority' }],
    ['dueDate', { order: 'dueDate' }],
    ['updated', { order: 'updated' }],
    ['json', { format: 'json' }],
  ])('a project in %s order: every task once, one query a page', async (_name, args) => {
    const all = await readAll({ project: projectKey, ...args });
    // The same list in one page of REST's use case (no budget there) is the order to match.
    const orderBy = (args as { order?: string }).order ?? 'created';
    const rest = await tasks.listTasks(actor, ListTasksQuery.parse({ projectId, orderBy, limit: 100 }), fx.runtime.deps);
    const more = await tasks.listTasks(actor, ListTasksQuery.parse({ projectId, orderBy, limit: 100, cursor: rest.nextCursor }), fx.runtime.deps);
    expect(rest.total).toBe(TASKS);
    expect(all.ids).toEqual([...rest.data, ...more.data].map((t) => t.key));
    expect(all.shown[0]).toBeLessThan(TASKS);
    expect(all.reads.every((n) => n === 1)).toBe(true);
  });

  it('a page cut after any of its rows, in either query, goes on from the next row', async () => {
    const deps = fx.runtime.deps;
    const runs = [['progress'], ['todo']] as Category[][];
    const filters = { assigneeId: actor.user.id, orderBy: 'created' };
    const whole = await searchInOrder(actor, filters, runs, 100, undefined, deps);
    expect(whole.data.map((t) => t.key)).toEqual(open.slice(0, 100));
    for (let n = 1; n < whole.data.length; n++) {
      const cut = whole.cut(n);
      expect(cut.data.map((t) => t.key)).toEqual(open.slice(0, n));
      expect(cut.total).toBe(open.length);
      const on = await searchInOrder(actor, filters, runs, 5, cut.nextCursor!, deps);
      expect(on.data.map((t) => t.key), `after ${n}`).toEqual(open.slice(n, n + 5));
    }
    expect(whole.cut(whole.data.length)).toBe(whole);
  });
});

describe('list_docs, list_meetings and list_activity read a list longer than the budget to its end', () => {
  const N = 120;
  let taskKey: string;

  beforeAll(async () => {
    const deps = fx.runtime.deps;
    const space = await docs.createSpace(actor.workspace.id, CreateDocSpaceInput.parse({ name: 'Handbook' }), deps);
    for (let i = 0; i < N; i++) {
      // Long titles: 100 rows of any of these lists are about twice the budget, so every first page is cut.
      await docs.createDoc(actor, { spaceId: space.id, title: words(`p${i}w`, 300) }, deps);
      await meetings.createMeeting(actor.workspace.id, CreateMeetingInput.parse({
        title: words(`m${i}w`, 300), createdBy: actor.user.id, startedAt: Date.UTC(2026, 0, 1) + i * 3_600_000,
      }), deps);
    }
    const project = await projects.createProject(actor, { name: 'History', key: 'HIS', description: '', template: 'simple' }, deps);
    const task = await tasks.createTask(actor, { title: 'Renamed often', projectId: project.id }, deps);
    taskKey = task.key;
    for (let i = 0; i < N; i++) await tasks.updateTask(actor, task.id, { title: words(`r${i}w`, 300) }, deps);
  }, 120_000);


  it.each(['markdown', 'json'])('list_docs in %s: every page once, in tree order, one read a page', async (format) => {
    const { ids, reads, shown } = await pageThrough('list_docs', { space: 'Handbook', format }, 'docs', (sc) => sc.pages.map((p: { id: string }) => p.id));
    const first = await docs.listDocs(actor, { spaceId: (await docs.spaceByRef(actor, 'Handbook', fx.runtime.deps, 'space')).id, limit: 100 }, fx.runtime.deps);
    const rest = await docs.listDocs(actor, { spaceId: first.data[0]!.spaceId, limit: 100, cursor: first.nextCursor! }, fx.runtime.deps);
    expect(first.total).toBe(N);
    expect(ids).toEqual([...first.data, ...rest.data].map((d) => d.id));
    expect(shown[0]).toBeLessThan(N);
    expect(reads.every((n) => n === 1)).toBe(true);
  });

  it.each(['markdown', 'json'])('list_meetings in %s: every meeting once, newest first, one read a page', async (format) => {
    const { ids, reads, shown } = await pageThrough('list_meetings', { format }, 'meetings', (sc) => sc.meetings.map((m: { id: string }) => m.id));
    const first = await meetings.listMeetings(actor, ListMeetingsQuery.parse({ limit: 100 }), fx.runtime.deps);
    const rest = await meetings.listMeetings(actor, ListMeetingsQuery.parse({ limit: 100, cursor: first.nextCursor }), fx.runtime.deps);
    expect(first.total).toBe(N);
    expect(ids).toEqual([...first.data, ...rest.data].map((m) => m.id));
    expect(shown[0]).toBeLessThan(N);
    expect(reads.every((n) => n === 1)).toBe(true);
  });

  it.each(['markdown', 'json'])("list_activity in %s: a task's every entry once, newest first, one read a page", async (format) => {
    const { ids, reads, shown } = await pageThrough('list_activity', { task: taskKey, format }, 'activity', (sc) =>
      (sc.entries ?? sc.ids.map((id: string) => ({ id }))).map((e: { id: string }) => e.id));
    const first = await activity.listActivity(actor, ActivityQuery.parse({ taskId: taskKey, limit: 100 }), fx.runtime.deps);
    const rest = await activity.listActivity(actor, ActivityQuery.parse({ taskId: taskKey, limit: 100, cursor: first.nextCursor }), fx.runtime.deps);
    expect(first.total).toBe(N + 1);
    expect(ids).toEqual([...first.data, ...rest.data].map((e) => e.id));
    expect(shown[0]).toBeLessThan(N);
    expect(reads.every((n) => n === 1)).toBe(true);
  });

  it('a page cut after any of its rows goes on from the next row (by id and newest-first pages)', async () => {
    const deps = fx.runtime.deps;
    const spaceId = (await docs.spaceByRef(actor, 'Handbook', deps, 'space')).id;
    const byPath = cuttable(await docs.listDocPage(actor, { spaceId, limit: 100 }, deps));
    const newest = cuttable(await meetings.listMeetingPage(actor, ListMeetingsQuery.parse({ limit: 100 }), deps));
    // Each list in full (its first 100, then the rest), the order a cut page must go on in.
    const docIds = [...byPath.data, ...(await docs.listDocs(actor, { spaceId, limit: 100, cursor: byPath.nextCursor! }, deps)).data].map((d) => d.id);
    const later = await meetings.listMeetings(actor, ListMeetingsQuery.parse({ limit: 100, cursor: newest.nextCursor }), deps);
    const meetingIds = [...newest.data, ...later.data].map((m) => m.id);
    expect(docIds).toHaveLength(N);
    expect(meetingIds).toHaveLength(N);
    for (let n = 1; n < 100; n++) {
      const doc = byPath.cut(n);
      expect(doc.data.map((d) => d.id)).toEqual(docIds.slice(0, n));
      const docsOn = await docs.listDocs(actor, { spaceId, limit: 3, cursor: doc.nextCursor! }, deps);
      expect(docsOn.data.map((d) => d.id), `docs after ${n}`).toEqual(docIds.slice(n, n + 3));
      const meeting = newest.cut(n);
      expect(meeting.data.map((m) => m.id)).toEqual(meetingIds.slice(0, n));
      const meetingsOn = await meetings.listMeetings(actor, ListMeetingsQuery.parse({ limit: 3, cursor: meeting.nextCursor }), deps);
      expect(meetingsOn.data.map((m) => m.id), `meetings after ${n}`).toEqual(meetingIds.slice(n, n + 3));
    }
    expect(byPath.cut(100)).toBe(byPath);
    expect(byPath.cut(40).cut(60).data).toHaveLength(40);
  });
});
