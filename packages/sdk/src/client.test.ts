import { describe, expect, it } from 'vitest';
import { operations, TaskTrackerClient, type OperationId } from './index.js';

/** One call per operation; the Record type makes the compiler demand an entry for every operation of the manifest. */
const calls: Record<OperationId, (c: TaskTrackerClient) => Promise<unknown>> = {
  getMe: (c) => c.me(),
  getUsers: (c) => c.users.list({ q: 'ann' }),
  getTeams: (c) => c.teams.list(),
  getLabels: (c) => c.labels.list(),
  getProjects: (c) => c.projects.list(),
  postProjects: (c) => c.projects.create({ name: 'Web', key: 'WEB' }),
  getProjectsById: (c) => c.projects.get('p1'),
  patchProjectsById: (c) => c.projects.update('p1', { name: 'Site' }),
  getBoards: (c) => c.boards.list({ projectId: 'p1' }),
  postBoards: (c) => c.boards.create({ projectId: 'p1', name: 'Bugs' }),
  getBoardsById: (c) => c.boards.get('b1'),
  postBoardsByIdStatuses: (c) => c.boards.addStatus('b1', { name: 'Review' }),
  getTasks: (c) => c.tasks.list({ category: 'todo' }),
  postTasks: (c) => c.tasks.create({ title: 'T' }),
  postTasksBulk: (c) => c.tasks.bulk([{ task: 'WEB-1', priority: 'high' }], { atomic: true }),
  getTasksByRef: (c) => c.tasks.get('WEB-1'),
  patchTasksByRef: (c) => c.tasks.update('WEB-1', { priority: 'high' }),
  deleteTasksByRef: (c) => c.tasks.delete('WEB-1'),
  postTasksByRefMove: (c) => c.tasks.move('WEB-1', { statusId: 's2' }),
  getTasksByRefContext: (c) => c.tasks.context('WEB-1'),
  getTasksByRefComments: (c) => c.tasks.listComments('WEB-1'),
  postTasksByRefComments: (c) => c.tasks.addComment('WEB-1', { text: 'hi' }),
  postTasksByRefTime: (c) => c.tasks.logTime('WEB-1', { minutes: 30 }),
  getTimeEntries: (c) => c.time.entries({ from: '2026-01-01' }),
  getTimeReport: (c) => c.time.report({ groupBy: ['user', 'day'] }),
  getDocSpaces: (c) => c.docs.spaces(),
  getDocs: (c) => c.docs.list({ spaceId: 's1' }),
  postDocs: (c) => c.docs.create({ spaceId: 's1', title: 'Guide' }),
  getDocsById: (c) => c.docs.get('d1'),
  patchDocsById: (c) => c.docs.update('d1', { title: 'Guide 2' }),
  getMeetingFolders: (c) => c.meetings.folders(),
  getMeetings: (c) => c.meetings.list({ folderId: 'personal' }),
  getMeetingsById: (c) => c.meetings.get('m1'),
  getMeetingsByIdTranscript: (c) => c.meetings.transcript('m1'),
  postMeetingsByIdActionItemsByIndexTask: (c) => c.meetings.createTaskFromAgreement('m1', 0, { title: 'From the agreement' }),
  getNotifications: (c) => c.notifications.list({ unread: true }),
  postNotificationsRead: (c) => c.notifications.markRead({ all: true }),
  getTasksByRefActivity: (c) => c.tasks.activity('WEB-1', { limit: 5 }),
  getActivity: (c) => c.activity.list({ since: '2026-11-23T00:00:00', projectId: 'WEB' }),
};

/** A fetch that answers every request with a generic page and records what was asked. */
function recordingClient() {
  const seen: Array<{ method: string; url: URL; body: unknown; accept: string | undefined }> = [];
  const client = new TaskTrackerClient({
    baseUrl: 'https://tracker.test/v1',
    apiKey: 'k',
    fetch: async (input, init) => {
      const headers = init.headers as Record<string, string>;
      seen.push({ method: init.method ?? 'GET', url: new URL(input), body: init.body ? JSON.parse(String(init.body)) : undefined, accept: headers.accept });
      if (init.method === 'DELETE') return new Response(null, { status: 204 });
      if (headers.accept !== 'application/json') return new Response('text form', { status: 200 });
      return Response.json({ data: [], nextCursor: null, total: 0 });
    },
  });
  return { client, seen };
}

/** The manifest entry a request was sent for, matched by method and path template. */
function operationOf(method: string, path: string): OperationId | undefined {
  return (Object.keys(operations) as OperationId[]).find((id) => {
    const spec = operations[id];
    const pattern = new RegExp(`^${spec.path.replace(/\{\w+\}/g, '[^/]+')}$`);
    return spec.method === method && pattern.test(path);
  });
}

describe('TaskTrackerClient', () => {
  it('has a method for every operation of the manifest, each sending that operation', async () => {
    for (const [id, call] of Object.entries(calls) as Array<[OperationId, (c: TaskTrackerClient) => Promise<unknown>]>) {
      const { client, seen } = recordingClient();
      await call(client);
      expect(seen, id).toHaveLength(1);
      expect(operationOf(seen[0]!.method, seen[0]!.url.pathname), id).toBe(id);
    }
    expect(Object.keys(calls).sort()).toEqual(Object.keys(operations).sort());
  });

  it('asks for the text form of Markdown and text endpoints and returns it as a string', async () => {
    const { client, seen } = recordingClient();
    expect(await client.docs.getMarkdown('d1')).toBe('text form');
    expect(await client.meetings.transcriptText('m1')).toBe('text form');
    expect(seen.map((s) => [s.url.pathname + s.url.search, s.accept])).toEqual([
      ['/v1/docs/d1?format=markdown', 'text/markdown'],
      ['/v1/meetings/m1/transcript?format=text', 'text/plain'],
    ]);
  });

  it('walks pages by cursor, as pages and as items', async () => {
    const pages = [
      { data: [{ id: 'a' }, { id: 'b' }], nextCursor: 'c1', total: 3 },
      { data: [{ id: 'c' }], nextCursor: null, total: 3 },
    ];
    const cursors: Array<string | null> = [];
    const client = new TaskTrackerClient({
      baseUrl: 'https://tracker.test',
      apiKey: 'k',
      fetch: async (input) => {
        const cursor = new URL(input).searchParams.get('cursor');
        cursors.push(cursor);
        return Response.json(cursor === 'c1' ? pages[1] : pages[0]);
      },
    });
    const ids: string[] = [];
    for await (const task of client.tasks.iterate({ limit: 2 })) ids.push(task.id);
    expect(ids).toEqual(['a', 'b', 'c']);
    const totals: number[] = [];
    for await (const page of client.tasks.pages({ limit: 2 })) totals.push(page.data.length);
    expect(totals).toEqual([2, 1]);
    expect(cursors).toEqual([null, 'c1', null, 'c1']);
  });

  it('stops with an error instead of looping when the server repeats a cursor', async () => {
    const client = new TaskTrackerClient({
      baseUrl: 'https://tracker.test', apiKey: 'k', fetch: async () => Response.json({ data: [{ id: 'a' }], nextCursor: 'same', total: 9 }),
    });
    const seen: string[] = [];
    await expect((async () => {
      for await (const t of client.projects.iterate()) seen.push(t.id);
    })()).rejects.toThrow(/repeated cursor same/);
    expect(seen).toEqual(['a', 'a']);
  });

  it('refuses a missing base URL, key or path parameter before sending anything', async () => {
    expect(() => new TaskTrackerClient({ baseUrl: '', apiKey: 'k' })).toThrow(/baseUrl/);
    expect(() => new TaskTrackerClient({ baseUrl: 'https://x', apiKey: '' })).toThrow(/apiKey/);
    const { client, seen } = recordingClient();
    await expect(client.tasks.get('')).rejects.toThrow(/ref/);
    expect(seen).toHaveLength(0);
  });
});
