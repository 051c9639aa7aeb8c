import { z } from 'zod';
import { context, ListTasksQuery, projects, tasks } from '@tt/domain';
import { bound } from '../answer/answer.js';
import { fitCuts, renderTaskView } from '../answer/context-view.js';
import { loginsById, taskTable } from '../answer/render.js';
import { ARGS } from './args.js';
import { definePrompt, forArg } from './prompt.js';

/** Brief me on a task before I work on it: the task as get_task shows it, and what to read next. */
export const briefTask = definePrompt({
  name: 'brief_task',
  title: 'Brief me on a task',
  description: 'A briefing on one task before you start on it: what is asked, what is open, what was decided, what to read first.',
  scopes: ['tasks:read'],
  toolset: 'tasks',
  args: z.object({ task: ARGS.task }),
  async run({ task }, { actor, deps }) {
    const view = await forArg('task', context.taskView(actor, task, { sections: context.TASK_SECTIONS, comments: 10, excerpt: 300 }, deps));
    const key = view.task.key;
    const body = renderTaskView(view, fitCuts((c) => renderTaskView(view, c).text.length)).text;
    return bound([
      `Brief me on task ${key} before I start working on it.`,
      '',
      'In a few short paragraphs: what is asked and why; what is done and what is still open (checklist, subtasks); what the ' +
        'comments decided and which questions are still open; the linked pages and meeting agreements worth reading; who is ' +
        'involved; and what I should do first.',
      `Read more with get_task (task "${key}"; sections ["history"] for who changed what; commentId for one comment in full), ` +
        `get_doc for a linked page and get_meeting for an agreement's meeting. The resource task://${key} is the same view, and ` +
        'subscriptions/listen on it tells you when it changes.',
      'Do not change the task while briefing me: no comments, moves or edits unless I ask.',
      '',
      '---',
      '',
      body,
    ].join('\n'));
  },
});

const DAY_MS = 86_400_000;

/** Triage a project's new or unassigned tasks: two lists and what to propose for each. */
export const triageProject = definePrompt({
  name: 'triage_project',
  title: "Triage a project's new and unassigned tasks",
  description: 'Goes through the tasks of a project created in the last 7 days or still without an assignee, and proposes priority, assignee and next step for each.',
  scopes: ['tasks:read'],
  toolset: 'tasks',
  args: z.object({ project: ARGS.project }),
  async run({ project }, { actor, deps }) {
    const p = await forArg('project', projects.projectByRef(actor, project, deps.store, 'list_projects shows project keys'));
    const since = deps.now() - 7 * DAY_MS;
    const [unassigned, recent] = await Promise.all([
      tasks.listTasks(actor, ListTasksQuery.parse({ projectId: p.id, assigneeId: 'none', category: 'todo,progress', orderBy: 'priority', limit: 50 }), deps),
      tasks.listTasks(actor, ListTasksQuery.parse({ projectId: p.id, category: 'todo,progress', orderBy: 'updated', limit: 100 }), deps),
    ]);
    const fresh = recent.data.filter((t) => t.createdAt >= since && t.assigneeIds.length > 0).slice(0, 50);
    const logins = await loginsById(actor.workspace.id, [...unassigned.data, ...fresh].flatMap((t) => t.assigneeIds), deps);
    const more = (shown: number, total: number) => (total > shown ? `\n(${shown} of ${total} shown; search_tasks with project "${p.key}" lists the rest.)` : '');
    return bound([
      `Triage project ${p.key}: its open tasks without an assignee, and the tasks created in the last 7 days.`,
      '',
      'For each task propose, in one line: a priority, an assignee (list_users shows people; prefer those already working in ' +
        'the project), a type if it looks wrong, and the next step or the question to ask its reporter. Flag duplicates ' +
        '(search_tasks with a few words of the title) and tasks too vague to start.',
      'Show me the proposals first. Only after I confirm, apply them with update_task (priority, assignees, type, labels) and ' +
        'add_comment for questions; use get_task when a title is not enough to judge.',
      '',
      `## Unassigned (${unassigned.total})`,
      '',
      unassigned.data.length ? taskTable(unassigned.data, logins) + more(unassigned.data.length, unassigned.total) : 'None.',
      '',
      `## Created in the last 7 days, assigned (${fresh.length})`,
      '',
      fresh.length ? taskTable(fresh, logins) : 'None.',
    ].join('\n'));
  },
});
