import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Actor, docs, keys, meetings, people, projects, type Scope, SCOPES, type Task, tasks, today } from '@tt/domain';
import type { Runtime } from '@tt/http';
import { callTool as call, mcpFixture, type McpFixture } from './test/fixture.js';

let fx: McpFixture;
let runtime: Runtime;
let actor: Actor;
let task: Task;
let fullKey: string;
const tokens: Record<string, string> = {};
let spaceId: string;
let meetingId: string;

const connect = (token: string) => fx.connect(token);

beforeAll(async () => {
  fx = await mcpFixture();
  runtime = fx.runtime;
  const deps = runtime.deps;
  const ws = await people.createWorkspace({ name: 'Acme', plan: 'business', timezone: 'Europe/Moscow' }, deps);
  const alice = await people.createUser(ws.id, { name: 'Alice Admin', login: 'alice', role: 'Lead', isAdmin: true }, deps);
  const issue = async (scopes: Scope[]) => (await keys.issueKey(alice.id, { scopes, projectIds: null, expiresAt: null, allowedIps: [] }, deps)).token;
  fullKey = await issue([...SCOPES]);
  tokens.timeOnly = await issue(['time:read']);
  tokens.docsRead = await issue(['docs:read', 'tasks:read']);
  tokens.tasksRead = await issue(['tasks:read']);
  const key = await keys.issueKey(alice.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps);
  actor = {
    workspace: { id: ws.id, name: ws.name, plan: ws.plan, timezone: ws.timezone, memberKeysEnabled: true },
    user: { ...alice, workspaceId: ws.id, deletedAt: null },
    key: { id: key.id, scopes: key.scopes as Scope[], projectIds: null },
  };
  const project = await projects.createProject(actor, { name: 'Website', key: 'WEB', description: '', template: 'simple' }, deps);
  task = await tasks.createTask(actor, { title: 'Launch page', projectId: project.id }, deps);
  spaceId = (await docs.createSpace(ws.id, { name: 'Handbook', description: 'How we work', memberIds: null }, deps)).id;
  await docs.createDoc(actor, { spaceId, title: 'Release checklist', text: 'Check the staging deploy first', taskIds: [task.key] }, deps);
  const folder = await meetings.createFolder(ws.id, { name: 'Weekly', parentId: null, teamIds: [] }, deps);
  meetingId = (
    await meetings.createMeeting(
      ws.id,
      {
        title: 'Launch planning', url: 'https://meet.example/42', folderId: folder.id, projectId: project.id, createdBy: alice.id,
        startedAt: Date.UTC(2026, 10, 2, 9), endedAt: Date.UTC(2026, 10, 2, 10), status: 'done', participants: ['Alice', 'Bob'],
        summary: {
          overview: 'Planned the launch of the new landing page.', topics: [{ title: 'Scope', points: ['Hero block only'] }],
          decisions: ['Launch on Monday'], actionItems: [{ text: 'Write launch copy', owner: 'Bob', due: '2026-11-09', taskId: task.key }],
        },
        transcript: [{ speaker: 'Alice', start: '00:00:02', end: '00:00:09', text: 'Let us launch on Monday' }],
      },
      deps,
    )
  ).id;
  await fx.start();
}, 60_000);

afterAll(() => fx?.close());

describe('time tools', () => {
  it('log_time records as the key user and time_report groups by people, tasks, projects and days', async () => {
    const client = await connect(fullKey);
    const logged = await call(client, 'log_time', { task: task.key, minutes: 45, note: 'hero block' });
    expect(logged.isError).toBeFalsy();
    expect(logged.text).toContain(`Logged 0.75h on ${task.key} for ${today('Europe/Moscow', Date.now())}`);
    await call(client, 'log_time', { task: task.key, seconds: 900, date: today('Europe/Moscow', Date.now()) });
    const report = await call(client, 'time_report', { groupBy: ['people', 'tasks', 'days'] });
    const asJson = await call(client, 'time_report', { groupBy: ['people', 'tasks', 'days'], format: 'json' });
    expect(report.isError).toBeFalsy();
    expect(report.text).toContain('total 1h (3600 s)');
    expect(report.text).toContain('| Person | Task | Day | Hours | Entries |');
    expect(report.text).toContain(`| Alice Admin | ${task.key} Launch page |`);
    expect((report.structuredContent as any).groupBy).toEqual(['user', 'task', 'day']);
    expect((report.structuredContent as any).rows).toBeUndefined();
    expect((asJson.structuredContent as any).rows).toHaveLength(1);
    const byProject = await call(client, 'time_report', { groupBy: ['projects'], projectIds: ['WEB'], userIds: ['me'] });
    expect(byProject.text).toContain('| WEB Website | 1 | 2 |');
  });

  it('errors are tool results with the REST codes', async () => {
    const client = await connect(fullKey);
    const tooShort = await call(client, 'log_time', { task: task.key, seconds: 30 });
    expect(tooShort.isError).toBe(true);
    expect(tooShort.text).toMatch(/^invalid_request: seconds: must be from 1 minute to 7 days/);
    const tooMany = await call(client, 'time_report', { from: '2024-01-01', to: '2026-01-01' });
    expect(tooMany.isError).toBe(true);
    expect(tooMany.text).toContain('invalid_request');
    const wrongType = await call(client, 'log_time', { task: task.key, minutes: 'ten' });
    expect(wrongType.isError).toBe(true);
    expect(wrongType.text).toMatch(/^invalid_request: minutes: /);
    const unknownArg = await call(client, 'time_report', { groupBy: ['people'], colour: 'red' });
    expect(unknownArg.text).toMatch(/^invalid_request: colour: unknown argument; allowed: from, to, groupBy, /);
    const missing = await call(client, 'log_time', { task: 'WEB-999', minutes: 5 });
    expect(missing.text).toMatch(/^not_found/);
  });
});

describe('doc tools', () => {
  it('list_docs shows spaces and pages; get_doc gives Markdown', async () => {
    const client = await connect(fullKey);
    const list = await call(client, 'list_docs', {});
    expect(list.text).toContain('- Handbook (');
    expect(list.text).toMatch(/- doc_\w+, linked to 1 task\(s\): <untrusted-text kind="doc-title" id="doc_\w+">Release checklist<\/untrusted-text>/);
    const found = await call(client, 'list_docs', { space: 'handbook', query: 'deploying', format: 'json' });
    const page = (found.structuredContent as any).pages[0];
    expect(page.title).toBe('Release checklist');
    const doc = await call(client, 'get_doc', { doc: page.id });
    expect(doc.text).toContain('>Release checklist</untrusted-text>');
    expect(doc.text).toMatch(/<untrusted-text kind="page" id="doc_\w+" author="usr_\w+">\nCheck the staging deploy first\n<\/untrusted-text>/);
    expect(doc.text).toContain(`linked tasks: ${task.key}`);
  });

  it('create_doc and update_doc take Markdown and store sanitized HTML with history', async () => {
    const client = await connect(fullKey);
    const created = await call(client, 'create_doc', { space: 'Handbook', title: 'Launch notes', content: '## Plan\n\n- **bold** step\n\n<script>alert(1)</script>' });
    expect(created.isError).toBeFalsy();
    const id = (created.structuredContent as any).id;
    const stored = await docs.getDoc(actor, id, runtime.deps);
    expect(stored.content).toContain('<h2>Plan</h2>');
    expect(stored.content).toContain('<strong>bold</strong>');
    expect(stored.content).not.toContain('script');
    const child = await call(client, 'create_doc', { space: spaceId, title: 'Child', content: 'x', parent: id });
    expect(child.isError).toBeFalsy();
    const updated = await call(client, 'update_doc', { doc: id, content: 'Replaced **entirely**' });
    expect(updated.isError).toBeFalsy();
    expect((await docs.getDoc(actor, id, runtime.deps)).text).toBe('Replaced entirely');
    expect((await runtime.deps.store.docs.versions(id)).map((v) => v.text)).toEqual([expect.stringContaining('bold step')]);
    const tree = await call(client, 'list_docs', { space: 'Handbook' });
    expect(tree.text).toMatch(/- doc_\w+: <untrusted-text kind="doc-title" id="doc_\w+">Launch notes<\/untrusted-text>\n {2}- doc_\w+: <untrusted-text kind="doc-title" id="doc_\w+">Child</);
    const bad = await call(client, 'create_doc', { space: 'Nope', title: 'x' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/^invalid_request: space: no space Nope; spaces you can read: <untrusted-text kind="name">Handbook<\/untrusted-text> \(/);
  });
});

describe('meeting tools', () => {
  it('list_meetings searches and get_meeting shows agreements, the transcript only when asked', async () => {
    const client = await connect(fullKey);
    const list = await call(client, 'list_meetings', { query: 'landing', from: '2026-11-01', to: '2026-11-30' });
    expect(list.text).toContain(`- ${meetingId} — `);
    expect(list.text).toContain(`<untrusted-text kind="meeting-title" id="${meetingId}">Launch planning</untrusted-text>`);
    expect((await call(client, 'list_meetings', { folder: 'personal' })).text).toBe('No meetings match.');
    const m = await call(client, 'get_meeting', { meeting: meetingId });
    expect(m.text).toContain('## Agreements');
    expect(m.text).toContain(`- Agreement 0: due 2026-11-09; task ${task.key} (${task.id}); owner <untrusted-text kind="name">Bob</untrusted-text>`);
    expect(m.text).toContain('>Write launch copy</untrusted-text>');
    expect(m.text).not.toContain('[00:00:02]');
    expect(m.text).toContain('includeTranscript');
    const withTranscript = await call(client, 'get_meeting', { meeting: meetingId, includeTranscript: true });
    expect(withTranscript.text).toContain('[00:00:02] Alice: Let us launch on Monday');
  });
});

describe('rights', () => {
  it('tools/list follows the key rights and get_task shows docs and agreements only with their rights', async () => {
    const timeOnly = await connect(tokens.timeOnly!);
    expect((await timeOnly.listTools()).tools.map((t) => t.name).sort()).toEqual(['list_projects', 'list_users', 'time_report', 'whoami']);
    const docsRead = await connect(tokens.docsRead!);
    expect((await docsRead.listTools()).tools.map((t) => t.name).sort()).toEqual(['get_doc', 'get_task', 'list_activity', 'list_docs', 'list_projects', 'list_users', 'search_tasks', 'whoami']);
    const withDocs = await call(docsRead, 'get_task', { task: task.key });
    expect(withDocs.text).toContain('## Linked pages (1)');
    expect(withDocs.text).not.toContain('## Meeting agreements');
    const full = await call(await connect(fullKey), 'get_task', { task: task.key });
    expect(full.text).toContain('on 2026-11-02 <untrusted-text kind="meeting-title"');
    expect(full.text).toContain('due 2026-11-09; owner <untrusted-text kind="name">Bob</untrusted-text>:');
    const bare = await call(await connect(tokens.tasksRead!), 'get_task', { task: task.key });
    expect(bare.text).not.toContain('Linked pages');
    expect(bare.text).not.toContain('Meeting agreements');
  });
});
