import { z } from 'zod';
import { dayBounds, hasScope, ListTasksQuery, projects, tasks, time, TimeReportQuery, today } from '@tt/domain';
import { bound } from '../answer/answer.js';
import { loginsById, taskTable } from '../answer/render.js';
import { ARGS } from './args.js';
import { fenceTable } from '../answer/untrusted.js';
import { badArg, definePrompt, forArg } from './prompt.js';

const DAY_MS = 86_400_000;

/** A project's weekly report: what was finished, what was opened, what is late, and the time spent, for a period. */
export const weeklyReport = definePrompt({
  name: 'weekly_report',
  title: "A project's weekly report",
  description: 'Finished, new and overdue tasks of a project and the hours logged, from `from` to `to` (default the last 7 days).',
  scopes: ['tasks:read'],
  toolset: 'tasks',
  args: z.object({ project: ARGS.project, from: ARGS.from.optional(), to: ARGS.to.optional() }),
  async run({ project, from, to }, { actor, deps }) {
    const p = await forArg('project', projects.projectByRef(actor, project, deps.store, 'list_projects shows project keys'));
    const tz = actor.workspace.timezone;
    const last = to ?? today(tz, deps.now());
    const first = from ?? today(tz, deps.now() - 6 * DAY_MS);
    if (first > last) throw badArg('from', `must not be after to (${last})`);
    const { start, end } = dayBounds(first, last, tz);
    const inPeriod = (ms: number | null) => ms !== null && ms >= start! && ms < end!;
    const list = (q: Record<string, unknown>) => tasks.listTasks(actor, ListTasksQuery.parse({ projectId: p.id, ...q }), deps).then((r) => r.data);
    const [changed, overdue] = await Promise.all([
      list({ orderBy: 'updated', archived: 'all', limit: 100 }),
      list({ category: 'todo,progress', dueBefore: today(tz, deps.now() - DAY_MS), orderBy: 'dueDate', limit: 30 }),
    ]);
    const done = changed.filter((t) => inPeriod(t.doneAt));
    const opened = changed.filter((t) => inPeriod(t.createdAt));
    const logins = await loginsById(actor.workspace.id, [...done, ...opened, ...overdue].flatMap((t) => t.assigneeIds), deps);
    const hours = hasScope(actor, 'time:read')
      ? (await time.report(actor, TimeReportQuery.parse({ from: first, to: last, projectId: p.id, groupBy: 'user' }), deps)).data
      : undefined;
    // People's names are person-written: one table in one block, never in a line of the prompt.
    const hoursTable = hours === undefined
      ? '(this key cannot read time: no time:read right)'
      : hours.length ? fenceTable(['Person', 'Hours'], hours.map((r) => [r.user?.name ?? '?', String(r.hours)])) : 'None logged.';
    return bound([
      `Write the weekly report of project ${p.key} for ${first} to ${last}.`,
      '',
      'Sections: highlights (two or three sentences), finished, started or new, late (overdue), time spent by person, and risks ' +
        'or decisions needed. One line per task with its key. Read a task with get_task when its title is not enough; ' +
        `search_tasks (project "${p.key}") and list_activity (project, since, until) give more. Do not change anything.`,
      changed.length === 100 ? `(Only the 100 most recently changed tasks were looked at; search_tasks finds the rest.)` : '',
      '',
      `## Finished (${done.length})`, '', done.length ? taskTable(done, logins) : 'None.', '',
      `## New (${opened.length})`, '', opened.length ? taskTable(opened, logins) : 'None.', '',
      `## Overdue and open (${overdue.length})`, '', overdue.length ? taskTable(overdue, logins) : 'None.', '',
      '## Time spent', '', hoursTable,
    ].join('\n'));
  },
});
