import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWorkspace } from '../../test/harness.js';

// The job system of the runtime (in process here; BullMQ on Redis with TEST_REDIS_URL) runs the automation.
let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
});
afterAll(() => h.close());

describe("an automation's changes", () => {
  it('are recorded as the worker, acting as the rule owner, with the automation id, in webhook task.updated too', async () => {
    const project = (await h.call(ws.token, 'POST', '/projects', { name: 'Web', key: 'WEB' })).body.data;
    const board = (await h.call(ws.token, 'GET', `/boards?projectId=${project.id}`)).body.data[0];
    const rule = (await h.op('POST', `/boards/${board.id}/automations`, {
      trigger: 'task_created', ownerId: ws.adminUser.id,
      actions: [
        { type: 'set_priority', priority: 'high' }, { type: 'add_labels', labels: ['triage'] }, { type: 'move', statusId: board.statuses[1].id },
        { type: 'add_checklist', items: [{ text: 'Reproduce', done: false }] }, { type: 'comment', text: 'Triaged automatically' },
      ],
    })).body.data;
    const member = await ws.user();
    const memberKey = await ws.key(member.id);
    const t = (await h.call(memberKey.token, 'POST', '/tasks', { projectId: project.id, title: 'Crash on start' })).body.data;
    await h.runtime.jobs.drain();
    const entries = (await h.call(ws.token, 'GET', `/tasks/${t.key}/activity`)).body.data as any[];
    const created = entries.at(-1);
    expect(created).toMatchObject({ action: 'task.created', actor: { id: member.id }, via: { channel: 'rest', keyId: memberKey.id } });
    const byRule = entries.slice(0, -1);
    expect(byRule.map((e) => e.action)).toEqual(['comment.created', 'task.updated', 'task.moved', 'task.updated', 'task.updated']);
    for (const e of byRule) {
      expect(e).toMatchObject({ actor: { id: ws.adminUser.id }, via: { channel: 'worker', keyId: null, clientName: null, automationId: rule.id } });
    }
    expect(byRule.flatMap((e) => e.changes.map((c: any) => c.field))).toEqual(expect.arrayContaining(['priority', 'labels', 'status', 'checklist', 'comment']));
    const byWorker = (await h.call(ws.token, 'GET', `/activity?taskId=${t.key}`)).body.data.filter((e: any) => e.via.channel === 'worker');
    expect(byWorker).toHaveLength(5);
  });
});
