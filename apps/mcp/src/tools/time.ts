import { z } from 'zod';
import { LogTimeInput, time, TimeReportQuery, type GroupBy } from '@tt/domain';
import { answer, done } from '../answer/answer.js';
import { resolveProject, resolveUsers } from '../resolve.js';
import { defineTool, validate } from '../tool.js';
import { fenceTable } from '../answer/untrusted.js';
import { format, FormatOut, READ } from './args.js';
import { taskRef } from './tasks-write.js';

const hours = (seconds: number): string => `${Math.round((seconds / 3600) * 100) / 100}h`;

export const logTime = defineTool({
  name: 'log_time',
  title: 'Log time',
  scope: 'time:write',
  toolset: 'time',
  description: 'Logs time you spent on a task (a new entry).',
  input: z.strictObject({
    task: taskRef,
    minutes: z.number().positive().optional().describe('Send this or seconds'),
    seconds: z.number().int().positive().optional().describe('Send this or minutes'),
    date: z.string().optional().describe('YYYY-MM-DD; default today'),
    note: LogTimeInput.shape.note.describe('What was done'),
  }),
  output: z.object({ id: z.string(), taskId: z.string(), taskKey: z.string(), seconds: z.number(), date: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  async run(args, { actor, deps }) {
    const input = validate(LogTimeInput, { minutes: args.minutes, seconds: args.seconds, date: args.date, note: args.note });
    const entry = await time.logTime(actor, args.task, input, deps);
    return done(`Logged ${hours(entry.seconds)} on ${entry.taskKey} for ${entry.date} (entry ${entry.id}).`, {
      id: entry.id, taskId: entry.taskId, taskKey: entry.taskKey, seconds: entry.seconds, date: entry.date,
    });
  },
});

/** The tool speaks of people, tasks, projects and days; the report groups by user, task, project and day. */
const GROUPS: Record<string, GroupBy> = {
  user: 'user', users: 'user', people: 'user', person: 'user',
  task: 'task', tasks: 'task', project: 'project', projects: 'project', day: 'day', days: 'day',
};

export const timeReport = defineTool({
  name: 'time_report',
  title: 'Time report',
  scope: 'time:read',
  toolset: 'time',
  description: 'Time logged in a period (default this month), by people, tasks, projects or days.',
  input: z.strictObject({
    from: z.string().optional().describe('First day, YYYY-MM-DD'),
    to: z.string().optional().describe('Last day, YYYY-MM-DD'),
    groupBy: z
      .array(z.enum(['user', 'users', 'people', 'person', 'task', 'tasks', 'project', 'projects', 'day', 'days']))
      .min(1)
      .max(3)
      .optional()
      .describe('Up to three; default user'),
    userIds: z.array(z.string().min(1).max(100)).max(100).optional().describe('People: ids, logins or `me`'),
    projectIds: z.array(z.string().min(1).max(100)).max(100).optional().describe('Project keys or ids'),
    taskIds: z.array(z.string().min(1).max(100)).max(100).optional().describe('Task keys or ids'),
    format,
  }),
  // Format json adds the rows.
  output: z.object({ format: FormatOut, from: z.string(), to: z.string(), totalSeconds: z.number(), groups: z.number(), shown: z.number() }),
  annotations: READ,
  async run(args, { actor, deps }) {
    const groupBy = [...new Set((args.groupBy ?? ['user']).map((g) => GROUPS[g]!))];
    const users = args.userIds?.length ? await resolveUsers(actor, args.userIds, deps, 'userIds') : undefined;
    const projects = args.projectIds?.length ? await Promise.all(args.projectIds.map((p) => resolveProject(actor, p, deps).then((r) => r.id))) : undefined;
    const query = validate(TimeReportQuery, {
      from: args.from, to: args.to, groupBy: groupBy.join(','),
      userId: users?.join(','), projectId: projects?.join(','), taskId: args.taskIds?.join(','),
    });
    const report = await time.report(actor, query, deps);
    // Groups beyond the budget are counted, not shown: 200 rows of a few names each stay well under it.
    const rows = report.data.slice(0, 200);
    const head = groupBy.map((g) => ({ user: 'Person', task: 'Task', project: 'Project', day: 'Day' })[g]);
    const lines = [
      `Time from ${report.from} to ${report.to}, grouped by ${groupBy.join(', ')}: total ${hours(report.totalSeconds)} (${report.totalSeconds} s).`,
      '',
    ];
    if (report.data.length) {
      // One table in one block: names and task titles are person-written.
      const cells = rows.map((row) => [
        ...groupBy.map((g) => {
          if (g === 'user') return row.user?.name ?? '';
          if (g === 'task') return `${row.task?.key ?? ''} ${row.task?.title ?? ''}`.trim();
          if (g === 'project') return `${row.project?.key ?? ''} ${row.project?.name ?? ''}`.trim();
          return row.day?.date ?? '';
        }),
        String(row.hours), String(row.entries),
      ]);
      lines.push(fenceTable([...head, 'Hours', 'Entries'], cells));
      if (report.data.length > rows.length) lines.push('', `${rows.length} of ${report.data.length} groups shown: narrow the period or the filters.`);
    } else lines.push('No time was logged in this period with these filters.');
    const head2 = { format: args.format, from: report.from, to: report.to, groupBy: report.groupBy, totalSeconds: report.totalSeconds, groups: report.data.length, shown: rows.length };
    return answer(args.format, () => lines.join('\n'), { ...head2, rows }, head2);
  },
});
