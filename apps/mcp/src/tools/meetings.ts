import { z } from 'zod';
import { CreateTaskInput, Day, ListMeetingsQuery, meetings, Priority, TaskType, visibleTasksById } from '@tt/domain';
import { answer, cuttable, fitPage, orNull } from '../answer/answer.js';
import { resolveBoard, resolveProject, resolveUsers } from '../resolve.js';
import { when } from '../answer/render.js';
import { defineTool, pageNote, validate } from '../tool.js';
import { clip, cutAt, fence, fenceInline, fenceLines, plain } from '../answer/untrusted.js';
import { assignees, card, labels, TaskWritten, WRITE } from './tasks-write.js';
import { cursor, format, FormatOut, READ } from './args.js';

/** Replicas per answer when the transcript is asked for; transcriptFrom reads on. */
const TRANSCRIPT_CHARS = 9000;
/** The recorder's statuses; any other value came from an import and is fenced like a name. */
const STATUSES = new Set(['recording', 'transcribing', 'done', 'failed']);
const status = (s: string): string => (STATUSES.has(s) ? s : fenceInline('name', s));

export const listMeetings = defineTool({
  name: 'list_meetings',
  title: 'List meetings',
  scope: 'meetings:read',
  toolset: 'meetings',
  description: 'Recorded meetings, newest first, by words, folder, project or days.',
  input: z.strictObject({
    query: z.string().trim().min(1).max(200).optional().describe('Words in title and summary'),
    folder: z.string().min(1).max(200).optional().describe('Folder name or id, or `personal`'),
    project: z.string().min(1).max(100).optional().describe('Project key or id'),
    from: ListMeetingsQuery.shape.from.describe('First day, YYYY-MM-DD'),
    to: ListMeetingsQuery.shape.to.describe('Last day, YYYY-MM-DD'),
    limit: z.number().int().min(1).max(100).default(20),
    cursor: cursor(),
    format,
  }),
  output: z.object({ format: FormatOut, meetings: z.array(z.object({ id: z.string() })), total: z.number(), nextCursor: orNull(z.string()) }),
  annotations: READ,
  async run(args, { actor, deps }) {
    const query = {
      q: args.query,
      folderId: args.folder ? await meetings.folderByRef(actor, args.folder, deps, 'folder') : undefined,
      projectId: args.project ? (await resolveProject(actor, args.project, deps)).id : undefined,
      from: args.from, to: args.to, cursor: args.cursor,
    };
    const read = await meetings.listMeetingPage(actor, validate(ListMeetingsQuery, { ...query, limit: args.limit }), deps);
    const render = (page: typeof read) => {
      const lines = page.data.map(
        (m) =>
          `- ${m.id} — ${when(m.startedAt, actor.workspace.timezone)}, ${status(m.status)}${m.hasSummary ? ', summary' : ''}${m.transcriptReady ? ', transcript' : ''}: ` +
          fenceInline('meeting-title', m.title, { id: m.id }),
      );
      return page.data.length ? ['Meetings, newest first:', ...lines, '', pageNote(page.data.length, page.total, 'meeting', page.nextCursor)].join('\n') : 'No meetings match.';
    };
    // One read: a page over the budget is cut after the last meeting that fits.
    const page = await fitPage(cuttable(read), (p) => (args.format === 'json' ? JSON.stringify(p).length : render(p).length));
    const data = {
      format: args.format,
      meetings: page.data.map((m) => ({ id: m.id, title: m.title, startedAt: m.startedAt, status: m.status, hasSummary: m.hasSummary })),
      total: page.total, nextCursor: page.nextCursor,
    };
    return answer(args.format, () => render(page), data, { ...data, meetings: page.data.map((m) => ({ id: m.id })) });
  },
});

const Agreement = z.object({ index: z.number(), taskId: orNull(z.string()), taskKey: orNull(z.string()) });

export const getMeeting = defineTool({
  name: 'get_meeting',
  title: 'Get meeting',
  scope: 'meetings:read',
  toolset: 'meetings',
  description: "A meeting's summary and agreements (action items), and on request its transcript.",
  input: z.strictObject({
    meeting: z.string().min(1).max(100).describe('Meeting id'),
    includeTranscript: z.boolean().default(false).describe('Add the transcript'),
    transcriptFrom: z.number().int().min(0).default(0).describe('nextFrom of the previous answer'),
    format,
  }),
  // Format json adds the meeting and the agreements' text.
  output: z.object({
    format: FormatOut,
    id: z.string(),
    agreements: z.array(Agreement),
    transcript: z.object({ replicas: z.number(), from: z.number(), shown: z.number(), nextFrom: orNull(z.number()) }).optional(),
  }),
  annotations: READ,
  async run(args, { actor, deps }) {
    const m = await meetings.getMeeting(actor, args.meeting, deps);
    const s = m.summary;
    const items = s?.actionItems ?? [];
    // The domain has already cleared task ids the key may not see; keys are looked up the same way.
    const keys = new Map([...(await visibleTasksById(actor, items.flatMap((a) => (a.taskId ? [a.taskId] : [])), deps.store)).values()].map((t) => [t.id, t.key]));
    const agreements = items.map((a, index) => ({ index, text: a.text, owner: a.owner, due: a.due, taskId: a.taskId, taskKey: a.taskId ? (keys.get(a.taskId) ?? null) : null }));
    const out: string[] = [
      `# Meeting ${m.id}`, '', `Title: ${fenceInline('meeting-title', m.title, { id: m.id })}`,
      `- **When:** ${when(m.startedAt, actor.workspace.timezone)}${m.endedAt ? ` to ${when(m.endedAt, actor.workspace.timezone)}` : ''}; folder ${m.folderId ?? 'none'}; project ${m.projectId ?? 'none'}`, '',
      // Status and link come from the recorder's import, participants are names: one block for the short strings.
      fenceLines('names', [
        `Status: ${m.status}`, `Participants (${m.participants.length}): ${m.participants.length ? m.participants.map(plain).join(', ') : 'none'}`,
        ...(m.url ? [`Link: ${m.url}`] : []),
      ], { id: m.id }),
    ];
    out.push('');
    if (!s) out.push('_No summary yet._', '');
    else {
      out.push('## Overview', '', s.overview ? fence('summary', clip(s.overview, 4000).text, { id: m.id }) : '_None._', '');
      if (s.topics.length) {
        out.push('## Topics', '');
        for (const t of s.topics.slice(0, 30)) out.push(fence('topic', clip([plain(t.title), ...t.points.map((p) => `- ${plain(p)}`)].join('\n'), 1500).text, { id: m.id }), '');
      }
      out.push('## Decisions', '', ...(s.decisions.length ? s.decisions.slice(0, 50).map((d) => `- ${fenceInline('decision', cutAt(d, 500), { id: m.id })}`) : ['_None._']), '');
      out.push('## Agreements', '');
      if (!agreements.length) out.push('_None._');
      for (const a of agreements) {
        const task = a.taskKey ? `task ${a.taskKey} (${a.taskId})` : 'no task yet';
        out.push(
          `- Agreement ${a.index}: ${a.due ? `due ${a.due}` : 'no due day'}; ${task}; owner ${a.owner.trim() ? fenceInline('name', a.owner) : 'unassigned'}`,
          `  ${fenceInline('agreement', cutAt(a.text, 500), { id: `${m.id}#${a.index}` })}`,
        );
      }
      out.push('');
    }
    let transcript: { replicas: number; from: number; shown: number; nextFrom: number | null } | undefined;
    if (args.includeTranscript) {
      const t = await meetings.getTranscript(actor, m.id, deps);
      const lines: string[] = [];
      let used = 0;
      let i = args.transcriptFrom;
      for (; i < t.replicas.length; i++) {
        const r = t.replicas[i]!;
        // One line per replica whatever the speaker's name or the text hold: a line break cannot forge a replica.
        const line = `[${r.start}] ${plain(r.speaker)}: ${cutAt(plain(r.text), 2000)}`;
        if (lines.length && used + line.length > TRANSCRIPT_CHARS) break;
        lines.push(line);
        used += line.length + 1;
      }
      transcript = { replicas: t.replicas.length, from: args.transcriptFrom, shown: lines.length, nextFrom: i < t.replicas.length ? i : null };
      out.push(`## Transcript (replicas ${args.transcriptFrom}-${i - 1} of ${t.replicas.length})`, '');
      out.push(lines.length ? fence('transcript', lines.join('\n'), { id: m.id }) : '_No transcript._');
      if (transcript.nextFrom !== null) out.push('', `More: read on with get_meeting {meeting: "${m.id}", includeTranscript: true, transcriptFrom: ${transcript.nextFrom}}.`);
    } else if (m.transcriptReady) out.push('_A transcript is available: call again with includeTranscript: true._');
    const index = { format: args.format, id: m.id, agreements: agreements.map((a) => ({ index: a.index, taskId: a.taskId, taskKey: a.taskKey })), ...(transcript ? { transcript } : {}) };
    return answer(args.format, () => out.join('\n').trimEnd() + '\n', { ...index, meeting: { ...m, summary: s ? { overview: s.overview, topics: s.topics, decisions: s.decisions, generatedAt: s.generatedAt } : null }, agreements }, index);
  },
});

export const createTaskFromAgreement = defineTool({
  name: 'create_task_from_agreement',
  title: 'Task from agreement',
  scope: ['tasks:write', 'meetings:read'],
  toolset: 'tasks',
  description: "Makes a task from a meeting's agreement (action item), once per agreement.",
  input: z.strictObject({
    meeting: z.string().min(1).max(100).describe('Meeting id'),
    agreement: z.number().int().min(0).max(100_000).describe('Index from get_meeting'),
    title: CreateTaskInput.shape.title.optional().describe("Default: the agreement's text"),
    project: z.string().min(1).max(100).optional().describe("Key or id; default the meeting's"),
    board: z.string().min(1).max(100).optional().describe('Board id'),
    assignees: assignees.optional().describe("Default: the agreement's owner"),
    priority: Priority.optional(),
    type: TaskType.optional(),
    labels: labels.optional(),
    dueDate: Day.optional().describe('YYYY-MM-DD'),
  }),
  output: TaskWritten.extend({ meetingId: z.string(), agreement: z.number() }),
  annotations: WRITE,
  async run(args, { actor, deps }) {
    const project = args.project !== undefined ? await resolveProject(actor, args.project, deps) : undefined;
    const board = args.board !== undefined ? await resolveBoard(actor, args.board, deps) : undefined;
    const r = await meetings.createTaskFromAgreement(actor, args.meeting, args.agreement, {
      title: args.title, projectId: project?.id, boardId: board?.id, priority: args.priority, type: args.type, labels: args.labels,
      dueDate: args.dueDate, assigneeIds: args.assignees ? await resolveUsers(actor, args.assignees, deps, 'assignees') : undefined,
    }, deps);
    const o = r.owner;
    const owner = `Owner ${fenceInline('name', o.name)}`;
    const ownerNote = o.userId ? `${owner} assigned.`
      : o.candidates.length ? `${owner} fits ${o.candidates.map((c) => `@${plain(c.login)}`).join(', ')}: left unassigned; use update_task to assign.`
      : o.name.trim() && !args.assignees ? `${owner} matches nobody: left unassigned.` : '';
    const res = await card(actor, r.task, deps, `Created ${r.task.key} (id ${r.task.id}) from agreement ${r.index} of meeting ${r.meetingId}. ${ownerNote}`.trim());
    return { ...res, structuredContent: { ...res.structuredContent, meetingId: r.meetingId, agreement: r.index, owner: { name: o.name, userId: o.userId } } };
  },
});
