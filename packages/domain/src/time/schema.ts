import { commaEnum, commaList, Cursor, Day, Id, Limit, z } from '../shared/index.js';

export const GROUP_BY = ['user', 'task', 'project', 'day'] as const;
export const GroupBy = z.enum(GROUP_BY);
export type GroupBy = z.infer<typeof GroupBy>;

/** Shortest and longest single time entry, in seconds. */
export const MIN_ENTRY_SECONDS = 60;
export const MAX_ENTRY_SECONDS = 7 * 24 * 3600;

export const LogTimeInput = z
  .strictObject({
    minutes: z.number().positive('must be positive').optional().openapi({ description: 'Minutes spent; send this or `seconds`' }),
    seconds: z.number().int('must be an integer').positive('must be positive').optional().openapi({ description: 'Seconds spent; send this or `minutes`' }),
    date: Day.optional().openapi({ description: "Day of the work; default today in the workspace's time zone (Europe/Moscow by default)" }),
    note: z.string().max(2000, 'must be at most 2000 characters').default(''),
  })
  .superRefine((v, ctx) => {
    if (v.minutes === undefined && v.seconds === undefined) {
      ctx.addIssue({ code: 'custom', path: ['minutes'], message: 'send minutes or seconds' });
      return;
    }
    if (v.minutes !== undefined && v.seconds !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['seconds'], message: 'send minutes or seconds, not both' });
      return;
    }
    const field = v.minutes !== undefined ? 'minutes' : 'seconds';
    const seconds = v.minutes !== undefined ? Math.round(v.minutes * 60) : v.seconds!;
    if (seconds < MIN_ENTRY_SECONDS || seconds > MAX_ENTRY_SECONDS) {
      ctx.addIssue({ code: 'custom', path: [field], message: 'must be from 1 minute to 7 days' });
    }
  })
  .openapi('LogTimeInput', { description: 'One of `minutes` or `seconds` is required; from 1 minute to 7 days.' });
export type LogTimeInput = z.infer<typeof LogTimeInput>;

const period = {
  from: Day.optional().openapi({ description: 'First day, inclusive; default the 1st of the current month' }),
  to: Day.optional().openapi({ description: 'Last day, inclusive; default today; at most one year after `from`' }),
  userId: commaList.optional().openapi({ description: 'Comma list of user ids' }),
  projectId: commaList.optional().openapi({ description: 'Comma list of project ids' }),
  taskId: commaList.optional().openapi({ description: 'Comma list of task ids or keys' }),
};

export const TimeEntriesQuery = z.strictObject({ ...period, limit: Limit, cursor: Cursor.optional() }).openapi('TimeEntriesQuery');
export type TimeEntriesQuery = z.infer<typeof TimeEntriesQuery>;

export const TimeReportQuery = z
  .strictObject({
    ...period,
    groupBy: z
      .string()
      .default('user')
      .pipe(commaEnum(GROUP_BY))
      .transform((groups) => [...new Set(groups)])
      .refine((groups) => groups.length > 0, 'name at least one grouping')
      .refine((groups) => groups.length <= 3, 'at most three groupings')
      .openapi({ type: 'string', description: 'Comma list of up to three of user, task, project, day; default user' }),
  })
  .openapi('TimeReportQuery');
export type TimeReportQuery = z.infer<typeof TimeReportQuery>;

export const TimeReportRow = z
  .object({
    user: z.object({ id: Id, name: z.string() }).optional(),
    project: z.object({ id: Id, key: z.string(), name: z.string() }).optional(),
    task: z.object({ id: Id, key: z.string(), title: z.string(), projectId: Id }).optional(),
    day: z
      .object({ date: Day, weekday: z.string().openapi({ example: 'Mon' }) })
      .optional()
      .openapi({ description: 'The day of the entries: `{date: "YYYY-MM-DD", weekday: "Mon"}`' }),
    seconds: z.number().int(),
    entries: z.number().int(),
    hours: z.number().openapi({ description: 'seconds / 3600, rounded to 2 decimals' }),
  })
  .openapi('TimeReportRow', { description: 'One object per requested grouping, then the sums' });
export type TimeReportRow = z.infer<typeof TimeReportRow>;

export const TimeReport = z
  .object({
    from: Day,
    to: Day,
    groupBy: z.array(GroupBy),
    totalSeconds: z.number().int(),
    totalHours: z.number(),
    data: z.array(TimeReportRow),
  })
  .openapi('TimeReport');
export type TimeReport = z.infer<typeof TimeReport>;
