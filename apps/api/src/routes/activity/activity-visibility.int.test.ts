import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityScenario, type ActivityScenario, namesForbidden, type ReaderName } from '../../../../mcp/src/test/activity-scenario.js';
import * as activityMeeting from '../../../../../packages/store/src/migrations/022-activity-meeting.js';
import { startHarness, type Harness } from '../../test/harness.js';

// Issue 51: an activity entry, and every id or title in its changes, is shown only to a reader who could read that
// object itself. The scenario (shared with MCP's list_activity test) names objects of every kind in every action.
let h: Harness;
let s: ActivityScenario;

beforeAll(async () => {
  h = await startHarness();
  s = await activityScenario(h.runtime.deps);
}, 120_000);
afterAll(() => h.close());

const get = async (reader: ReaderName, path: string) => {
  const r = await h.call(s.readers[reader].token, 'GET', path);
  expect(r.status, r.text).toBe(200);
  return r.body;
};
/** The whole feed, `limit` at a time: every page but the last is full, and the pages add up to `total`. */
const feed = async (reader: ReaderName, limit = 4, query = '') => {
  const entries: any[] = [];
  let cursor: string | null = null;
  let total: number;
  do {
    const page: any = await get(reader, `/activity?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`);
    if (page.nextCursor) expect(page.data, 'a page before the last is full').toHaveLength(limit);
    total = page.total;
    expect(page.totalCapped).toBe(false);
    entries.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  expect(entries).toHaveLength(total);
  return entries;
};
const history = async (reader: ReaderName, ref: string) => (await get(reader, `/tasks/${ref}/activity?limit=100`)).data as any[];
const docIdsChanges = (entries: any[]) => entries.flatMap((e) => e.changes.filter((c: any) => c.field === 'docIds'));

describe('the activity log shows only what the reader could read (issue 51)', () => {
  it('a key without docs:read sees no page entry, nor a page id in a task entry; without meetings:read no meeting entry', async () => {
    const all = await feed('admin');
    expect(all.some((e) => e.action === 'doc.created' && e.doc.id === s.ids.openPage)).toBe(true);
    expect(all.filter((e) => e.action === 'task.created_from_agreement')).toHaveLength(4);

    const noDocs = await feed('noDocs');
    expect(noDocs.filter((e) => e.doc !== null || e.action.startsWith('doc.'))).toEqual([]);
    expect(docIdsChanges(noDocs)).toEqual([]);
    expect(docIdsChanges(await history('noDocs', s.tasks.web.key))).toEqual([]);
    expect(docIdsChanges(await history('admin', s.tasks.web.key)).map((c) => c.to)).toEqual([s.ids.closedPage, s.ids.openPage]);

    const noMeetings = await feed('noMeetings');
    expect(noMeetings.filter((e) => e.action === 'task.created_from_agreement')).toEqual([]);
    const fromMeeting = await history('noMeetings', s.tasks.fromMeeting.open!.key);
    expect(fromMeeting.map((e) => e.action)).toEqual(['task.created']);
    expect((await history('admin', s.tasks.fromMeeting.open!.key)).map((e) => e.action)).toEqual(['task.created_from_agreement', 'task.created']);
    // The rest of the feed is the same: only what names the objects went.
    expect(noDocs.length + all.filter((e) => e.doc !== null).length).toBe(all.length);
    expect(noMeetings.length + 4).toBe(all.length);
  });

  it("a project-restricted key sees no task of another project in a page's taskIds", async () => {
    const created = (entries: any[]) => entries.find((e) => e.action === 'doc.created' && e.doc.id === s.ids.openPage);
    const taskIds = (e: any) => e.changes.find((c: any) => c.field === 'taskIds');
    expect(taskIds(created(await feed('admin'))).to).toEqual([s.tasks.web.id, s.ids.ops, s.ids.secret]);
    const restricted = await feed('restricted');
    expect(taskIds(created(restricted))).toEqual({ field: 'taskIds', from: [], to: [s.tasks.web.id, s.ids.secret] });
    const updated = restricted.find((e) => e.action === 'doc.updated' && e.doc.id === s.ids.openPage);
    expect(taskIds(updated)).toEqual({ field: 'taskIds', from: [s.tasks.web.id, s.ids.secret], to: [s.tasks.web.id] });
    // Another project's meeting is the meeting's entry's subject: the entry goes, the task's creation stays.
    expect((await history('restricted', s.tasks.fromMeeting.ops!.key)).map((e) => e.action)).toEqual(['task.created']);
  });

  it("a member outside a closed doc space sees none of its pages in a task's docIds, as in the task itself", async () => {
    const entries = await history('outsideSpace', s.tasks.web.key);
    expect(docIdsChanges(entries).map((c) => c.to)).toEqual([s.ids.openPage]);
    // The entry that linked the closed page stays (the task is the reader's), with nothing it may not read.
    const linked = entries.filter((e) => e.action === 'task.updated' && e.changes.length === 0);
    expect(linked).toHaveLength(1);
    const task = (await get('outsideSpace', `/tasks/${s.tasks.web.key}`)).data;
    expect(task.docIds).toEqual([s.ids.openPage]);
    expect((await feed('outsideSpace')).some((e) => e.doc?.id === s.ids.closedPage)).toBe(false);
  });

  it('a member outside a closed board sees neither its tasks in taskIds or parentId, nor the board and its columns in a move', async () => {
    const moved = (await history('outsideBoard', s.tasks.moved.key)).find((e) => e.action === 'task.moved');
    expect(moved.changes).toEqual([
      { field: 'boardId', from: null, to: s.ids.webBoard },
      { field: 'status', from: null, to: expect.objectContaining({ id: expect.any(String) }) },
    ]);
    const child = await history('outsideBoard', s.tasks.child.key);
    expect(child.flatMap((e) => e.changes.map((c: any) => c.field))).not.toContain('parentId');
    expect((await history('admin', s.tasks.child.key)).flatMap((e) => e.changes.map((c: any) => c.field))).toContain('parentId');
  });

  it('walks every action for every reader: nothing names an object the reader may not read, and the pages stay full', async () => {
    const actions = new Set((await feed('admin')).map((e) => e.action));
    expect([...actions].sort()).toEqual([
      'attachment.added', 'comment.created', 'doc.created', 'doc.updated', 'task.archived', 'task.created', 'task.created_from_agreement',
      'task.deleted', 'task.moved', 'task.restored', 'task.updated', 'time.logged',
    ]);
    for (const reader of Object.keys(s.readers) as ReaderName[]) {
      for (const limit of [3, 100]) {
        const entries = await feed(reader, limit);
        expect(namesForbidden(s.readers[reader], entries), `${reader}: /activity?limit=${limit}`).toBeUndefined();
      }
      const all = await feed(reader, 100);
      const deleted = new Set(all.filter((e) => e.action === 'task.deleted').map((e) => e.task.key));
      const keys = new Set(all.flatMap((e) => (e.task && !deleted.has(e.task.key) ? [e.task.key] : [])));
      for (const key of keys) expect(namesForbidden(s.readers[reader], await history(reader, key)), `${reader}: ${key}`).toBeUndefined();
      // A filter narrows the same visible entries.
      const web = await feed(reader, 5, `&taskId=${s.tasks.web.key}`);
      expect(namesForbidden(s.readers[reader], web), `${reader}: taskId filter`).toBeUndefined();
    }
  });

  // Last: it rebuilds a column of the activity table under the running API.
  it('names the meeting of entries written before the meeting had a column of its own (migration 022)', async () => {
    const db = h.runtime.db;
    await activityMeeting.down(db);
    await activityMeeting.up(db);
    const rows = await db('activity').where({ workspace_id: s.workspaceId, action: 'task.created_from_agreement' }).select('task_id', 'meeting_id');
    expect(Object.fromEntries(rows.map((r: any) => [r.task_id, r.meeting_id]))).toEqual({
      [s.tasks.fromMeeting.open!.id]: s.ids.meetings.open, [s.tasks.fromMeeting.team!.id]: s.ids.meetings.team,
      [s.tasks.fromMeeting.personal!.id]: s.ids.meetings.personal, [s.tasks.fromMeeting.ops!.id]: s.ids.meetings.ops,
    });
    expect((await feed('outsideFolder')).filter((e) => e.action === 'task.created_from_agreement')).toHaveLength(2);
  });
});
