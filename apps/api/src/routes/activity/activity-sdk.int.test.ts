import { TaskTrackerClient, type ActivityEntry } from '@tt/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWorkspace } from '../../test/harness.js';

// The SDK's activity methods against the real API, through real HTTP.
let h: Harness;
let ws: TestWorkspace;
let client: TaskTrackerClient;

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
  client = new TaskTrackerClient({ baseUrl: h.base, apiKey: ws.token });
});
afterAll(() => h.close());

describe('SDK: activity', () => {
  it('reads a task history (client.tasks.activity) and iterates the feed across pages (client.activity.iterate)', async () => {
    const since = new Date();
    const project = await client.projects.create({ name: 'Web', key: 'WEB' });
    const task = await client.tasks.create({ projectId: project.id, title: 'Typed history' });
    await client.tasks.update(task.key, { priority: 'high' });
    await client.tasks.update(task.key, { title: 'Typed history, renamed' });

    const page = await client.tasks.activity(task.key, { limit: 2 });
    expect(page.total).toBe(3);
    expect(page.data.map((e) => e.action)).toEqual(['task.updated', 'task.updated']);
    const first: ActivityEntry = page.data[0]!;
    expect(first.changes).toEqual([{ field: 'title', from: 'Typed history', to: 'Typed history, renamed' }]);
    expect(first.via).toEqual({ channel: 'rest', keyId: ws.keyId, clientName: null, automationId: null });

    const all: ActivityEntry[] = [];
    for await (const e of client.activity.iterate({ since, taskId: task.key, limit: 1 })) all.push(e);
    expect(all.map((e) => e.action)).toEqual(['task.updated', 'task.updated', 'task.created']);
    expect(all.every((e) => e.task?.key === task.key)).toBe(true);
  });
});
