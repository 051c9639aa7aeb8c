import { z } from 'zod';
import { type Actor, dayBounds, type Deps, hasScope, ListTasksQuery, people, type TaskSummary, tasks, time, TimeReportQuery, today } from '@tt/domain';
import { bound } from '../answer/answer.js';
import { loginsById, taskTable } from '../answer/render.js';
import { ARGS } from './args.js';
import { definePrompt, forArg } from './prompt.js';

const DAY_MS = 86_400_000;

/** A person's stand-up: what they did since `from`, what is next, what blocks them. */
export const standup = definePrompt({
  name: 'standup',
  title: "A person's stand-up",
  description: 'What a person finished and logged time on since a day (default yesterday), what they work on now and next, and what blocks them.',
  scopes: ['tasks:read'],
  toolset: 'tasks',
  args: z.object({ person: ARGS.person, from: ARGS.from.optional() }),
  async run({ person, from }, { actor, deps }) {
    const userId = await forArg('person', people.filterUserId(actor, person, deps.store));
    const user = await deps.store.users.get(actor.workspace.id, userId);
    const tz = actor.workspace.timezone;
    const day = from ?? today(tz, deps.now() - DAY_MS);
    const since = dayBounds(day, undefined, tz).start!;
    const list = (q: Record<string, unknown>) => tasks.listTasks(actor, ListTasksQuery.parse({ assigneeId: userId, ...q }), deps).then((p) => p.data);
    const [recent, doing, next] = await Promise.all([
      list({ orderBy: 'updated', limit: 100 }),
      list({ category: 'progress', orderBy: 'priority', limit: 30 }),
      list({ category: 'todo', orderBy: 'priority', limit: 15 }),
    ]);
    const done = recent.filter((t) => t.doneAt !== null && t.doneAt >= since);
    const blocked = [...doing, ...next].filter((t) => t.labels.some((l) => /block/i.test(l)));
    const timeLines = hasScope(actor, 'time:read') ? await timeSince(actor, userId, day, deps) : ['(this key cannot read time: no time:read right)'];
    const logins = await loginsById(actor.workspace.id, [...done, ...doing, ...next].flatMap((t) => t.assigneeIds), deps);
    const table = (l: TaskSummary[]) => (l.length ? taskTable(l, logins) : 'None.');
    const who = user ? `@${user.login}` : person;
    return bound([
      `Write the stand-up of ${who} since ${day}: what was done, what is next, what blocks.`,
      '',
      'Three short sections (Done, Next, Blocked), one line per item with the task key. Use get_task on tasks in progress to read ' +
        'their latest comments for blockers and open questions; list_activity (person, since) shows other changes they made. ' +
        'Do not change anything; this is a report.',
      '',
      `## Done since ${day}`, '', table(done), '',
      '## In progress', '', table(doing), '',
      '## Next (to do, by priority)', '', table(next), '',
      '## Labelled as blocked', '', table(blocked), '',
      `## Time logged since ${day}`, '', ...timeLines,
    ].join('\n'));
  },
});

async function timeSince(actor: Actor, userId: string, from: string, deps: Deps): Promise<string[]> {
  const report = await time.report(actor, TimeReportQuery.parse({ from, userId, groupBy: 'task' }), deps);
  if (!report.data.length) return ['None.'];
  return [
    ...report.data.map((r) => `- ${r.task?.key ?? '?'}: ${r.hours} h`),
    `Total ${report.totalHours} h (time_report gives more).`,
  ];
}
