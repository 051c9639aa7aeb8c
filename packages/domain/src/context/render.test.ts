import { describe, expect, it } from 'vitest';
import type { CommentRecord } from '../comments/index.js';
import type { UserRecord } from '../keys/index.js';
import type { TaskDetails, TaskRecord } from '../tasks/index.js';
import { type ContextInput, renderTaskContext } from './render.js';

const T0 = Date.UTC(2026, 0, 2, 3, 4, 5); // 2026-01-02 03:04 UTC, 04:04 in Berlin (+01:00)

const task = (over: Partial<TaskRecord> = {}): TaskRecord => ({
  id: 'task_1',
  workspaceId: 'ws_1',
  projectId: 'proj_1',
  boardId: 'board_1',
  statusId: 'st_1',
  statusName: 'In Progress',
  statusCategory: 'progress',
  number: 12,
  key: 'WEB-12',
  title: 'Fix the login page',
  type: 'bug',
  priority: 'high',
  assigneeId: 'u_ann',
  assigneeIds: ['u_ann', 'u_gone'],
  reporterId: 'u_bob',
  labels: ['frontend', 'auth'],
  dueDate: '2026-02-01',
  parentId: 'task_0',
  timeEstimateSeconds: 5400,
  timeSpentSeconds: 1000,
  descriptionHtml: '<h2>Steps</h2><p>Open <strong>login</strong></p><ul><li>type</li><li>submit</li></ul>',
  descriptionText: 'Steps\n\nOpen login',
  checklist: [
    { id: 'c1', text: 'Reproduce', done: true },
    { id: 'c2', text: 'Write fix', done: false },
  ],
  rank: 0,
  archivedAt: null,
  doneAt: null,
  createdAt: T0,
  updatedAt: T0 + 3_600_000,
  version: 1,
  ...over,
});

const user = (id: string, name: string, login: string): UserRecord => ({
  id,
  workspaceId: 'ws_1',
  name,
  login,
  role: 'member',
  isAdmin: false,
  teamIds: [],
  deletedAt: null,
});

const comment = (id: string, text: string, over: Partial<CommentRecord> = {}): CommentRecord => ({
  id,
  workspaceId: 'ws_1',
  taskId: 'task_1',
  authorId: 'u_ann',
  text,
  replyTo: null,
  mentionIds: [],
  createdAt: T0,
  ...over,
});

const details: TaskDetails = { subtaskIds: ['task_2'], timeLogs: [], attachments: [], docIds: [], position: 0 };

const input = (over: Partial<ContextInput> = {}): ContextInput => ({
  task: task(),
  details,
  projectName: 'Website',
  boardName: 'Main board',
  subtasks: [task({ id: 'task_2', key: 'WEB-13', title: 'Add test', statusName: 'Done', statusCategory: 'done' })],
  parent: task({ id: 'task_0', key: 'WEB-1', title: 'Auth epic' }),
  comments: [
    comment('cm_1', 'First look @bob'),
    comment('cm_2', 'Agreed', { authorId: 'u_bob', replyTo: 'cm_1', createdAt: T0 + 60_000 }),
  ],
  totalComments: 5,
  users: new Map([
    ['u_ann', user('u_ann', 'Ann Lee', 'ann')],
    ['u_bob', user('u_bob', 'Bob Smith', 'bob.smith')],
  ]),
  timezone: 'Europe/Berlin',
  ...over,
});

describe('renderTaskContext', () => {
  it('starts with the key and title and ends with a single newline', () => {
    const md = renderTaskContext(input());
    expect(md.startsWith('# WEB-12: Fix the login page\n\n## Properties\n')).toBe(true);
    expect(md.endsWith('\n')).toBe(true);
    expect(md.endsWith('\n\n')).toBe(false);
  });

  it("lists the properties with resolved users, hours and times in the workspace's zone with its offset", () => {
    const md = renderTaskContext(input());
    for (const line of [
      '- **Id:** task_1',
      '- **Project:** Website',
      '- **Board:** Main board',
      '- **Status:** In Progress (progress)',
      '- **Type:** bug',
      '- **Priority:** high',
      '- **Assignee:** Ann Lee (@ann)',
      '- **Assignees:** Ann Lee (@ann), u_gone',
      '- **Reporter:** Bob Smith (@bob.smith)',
      '- **Labels:** frontend, auth',
      '- **Due date:** 2026-02-01',
      '- **Parent:** WEB-1: Auth epic',
      '- **Estimate:** 1.5h',
      '- **Time spent:** 0.28h',
      '- **Archived:** no',
      '- **Done at:** -',
      '- **Created:** 2026-01-02 04:04 +01:00',
      '- **Updated:** 2026-01-02 05:04 +01:00',
    ]) {
      expect(md.split('\n'), line).toContain(line);
    }
  });

  it('shows fallbacks for empty properties', () => {
    const md = renderTaskContext(
      input({
        task: task({ assigneeId: null, assigneeIds: [], labels: [], dueDate: null, archivedAt: T0, doneAt: T0 }),
        parent: null,
      }),
    );
    const lines = md.split('\n');
    expect(lines).toContain('- **Assignee:** nobody');
    expect(lines).toContain('- **Assignees:** none');
    expect(lines).toContain('- **Labels:** none');
    expect(lines).toContain('- **Due date:** none');
    expect(lines).toContain('- **Parent:** none');
    expect(lines).toContain('- **Archived:** yes, 2026-01-02 04:04 +01:00');
    expect(lines).toContain('- **Done at:** 2026-01-02 04:04 +01:00');
  });

  it('converts the HTML description to Markdown', () => {
    const md = renderTaskContext(input());
    expect(md).toContain('## Description\n\n## Steps\n\nOpen **login**\n\n- type\n- submit\n');
    expect(md).not.toContain('<strong>');
  });

  it('says so when there is no description, checklist, subtask or comment', () => {
    const md = renderTaskContext(
      input({ task: task({ descriptionHtml: '', checklist: [] }), subtasks: [], comments: [], totalComments: 0 }),
    );
    expect(md).toContain('## Description\n\n_No description._\n');
    expect(md).toContain('## Checklist\n\n_No checklist._\n');
    expect(md).toContain('## Subtasks\n\n_No subtasks._\n');
    expect(md).toContain('## Discussion (0 of 0 comments, latest last)\n\n_No comments._');
  });

  it('renders the checklist as task-list items', () => {
    const md = renderTaskContext(input());
    expect(md).toContain('## Checklist\n\n- [x] Reproduce\n- [ ] Write fix\n');
  });

  it('lists subtasks with their status', () => {
    expect(renderTaskContext(input())).toContain('## Subtasks\n\n- WEB-13: Add test (Done, done)\n');
  });

  it('renders comments with ids, authors, times and replies', () => {
    const md = renderTaskContext(input());
    expect(md).toContain('## Discussion (2 of 5 comments, latest last)');
    expect(md).toContain('### Comment cm_1 by Ann Lee (@ann) at 2026-01-02 04:04 +01:00\n\nFirst look @bob\n');
    expect(md).toContain('### Comment cm_2 by Bob Smith (@bob.smith) at 2026-01-02 04:05 +01:00 in reply to cm_1\n\nAgreed\n');
    expect(md.indexOf('cm_1')).toBeLessThan(md.indexOf('cm_2'));
  });

  it('omits the linked documents and meeting agreements sections when not passed', () => {
    const md = renderTaskContext(input());
    expect(md).not.toContain('## Linked documents');
    expect(md).not.toContain('## Meeting agreements');
  });

  it('renders empty sections when docs and agreements are passed as empty lists', () => {
    const md = renderTaskContext(input({ docs: [], agreements: [] }));
    expect(md).toContain('## Linked documents\n\n_No linked documents._\n');
    expect(md).toContain('## Meeting agreements\n\n_No meeting agreements._\n');
  });

  it('renders linked documents and meeting agreements when given', () => {
    const md = renderTaskContext(
      input({
        docs: [{ id: 'doc_1', title: 'Auth spec', markdown: '# Spec\n\nUse OAuth.' }],
        agreements: [
          { meetingId: 'mt_1', meetingTitle: 'Standup', day: '2026-01-05', text: 'Ship by Friday', owner: 'ann', due: '2026-01-09' },
          { meetingId: 'mt_2', meetingTitle: 'Retro', day: '2026-01-06', text: 'Add tests', owner: '', due: null },
        ],
      }),
    );
    expect(md).toContain('## Linked documents\n\n### Auth spec (doc_1)\n\n# Spec\n\nUse OAuth.\n');
    expect(md).toContain('## Meeting agreements\n\n');
    expect(md).toContain('- Ship by Friday (owner ann, due 2026-01-09; meeting "Standup" 2026-01-05, mt_1)\n');
    expect(md).toContain('- Add tests (owner unassigned; meeting "Retro" 2026-01-06, mt_2)\n');
    expect(md.indexOf('## Discussion')).toBeLessThan(md.indexOf('## Linked documents'));
    expect(md.indexOf('## Linked documents')).toBeLessThan(md.indexOf('## Meeting agreements'));
  });

  it('renders only the section that is passed', () => {
    const onlyDocs = renderTaskContext(input({ docs: [] }));
    expect(onlyDocs).toContain('## Linked documents');
    expect(onlyDocs).not.toContain('## Meeting agreements');
    const onlyAgreements = renderTaskContext(input({ agreements: [] }));
    expect(onlyAgreements).not.toContain('## Linked documents');
    expect(onlyAgreements).toContain('## Meeting agreements');
  });
});
