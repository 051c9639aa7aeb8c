import { z } from 'zod';
import { activity, ActivityEntry, ActivityQuery, changeLine, wallClock } from '@tt/domain';
import { answer, cuttable, fitPage } from '../answer/answer.js';
import { fenceTable } from '../answer/untrusted.js';
import { defineTool, pageNote, validate } from '../tool.js';
import { cursor, format, FormatOut, READ } from './args.js';

/** The table of entries: who, when, through what, and each change (person-written values, so one fenced block). */
function table(entries: readonly ActivityEntry[], timezone: string): string {
  const cells = entries.map((e) => [
    wallClock(e.at, timezone),
    e.task?.key ?? (e.doc ? `page ${e.doc.id}` : ''),
    e.actor ? `${e.actor.name} (@${e.actor.login})` : 'operator',
    [e.via.channel, e.via.clientName, e.via.automationId ? `automation ${e.via.automationId}` : null].filter(Boolean).join(', '),
    e.action,
    e.changes.map((c) => changeLine(c, 120)).join('; '),
  ]);
  return fenceTable(['When', 'Task', 'Who', 'Via', 'Action', 'Changes'], cells);
}

export const listActivity = defineTool({
  name: 'list_activity',
  title: 'List activity',
  scope: 'tasks:read',
  toolset: 'tasks',
  description: 'Who changed what and when, newest first: e.g. what changed since Monday.',
  input: z.strictObject({
    since: z.string().min(1).max(40).optional().describe('ISO 8601 or epoch ms'),
    until: z.string().min(1).max(40).optional().describe('ISO 8601 or epoch ms'),
    project: z.string().min(1).max(100).optional().describe('Project key or id'),
    person: z.string().min(1).max(100).optional().describe('Who acted: login, id or `me`'),
    task: z.string().min(1).max(100).optional().describe('Task key or id'),
    limit: z.number().int().min(1).max(100).default(50),
    cursor: cursor(500),
    format,
  }),
  // Format markdown gives the entries' ids, format json the entries.
  output: z.object({
    format: FormatOut, total: z.number(), totalCapped: z.boolean(), shown: z.number(), nextCursor: z.string().nullable(), ids: z.array(z.string()).optional(),
  }),
  annotations: READ,
  async run(args, { actor, deps }) {
    const base = { since: args.since, until: args.until, projectId: args.project, actorId: args.person, taskId: args.task, cursor: args.cursor };
    const tz = actor.workspace.timezone;
    // One read: a page over the budget is cut after the last entry that fits.
    const page = await fitPage(
      cuttable(await activity.listActivityPage(actor, validate(ActivityQuery, { ...base, limit: args.limit }), deps)),
      (p) => (args.format === 'json' ? JSON.stringify(p.data).length : table(p.data, tz).length),
    );
    // The feed counts at most ACTIVITY_COUNT_CAP entries: past that the note says "more than", never a false total.
    const note = pageNote(page.data.length, page.total, 'entry', page.nextCursor, { plural: 'entries', capped: page.totalCapped });
    const index = { format: args.format, total: page.total, totalCapped: page.totalCapped, shown: page.data.length, nextCursor: page.nextCursor };
    return answer(
      args.format,
      () => (page.data.length ? `Activity, newest first (times in ${tz}):\n\n${table(page.data, tz)}\n\n${note}` : 'No activity matches these filters.'),
      { ...index, entries: page.data },
      { ...index, ids: page.data.map((e) => e.id) },
    );
  },
});
