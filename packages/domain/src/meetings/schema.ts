import { Cursor, Day, Id, InputTs, Limit, Ts, z } from '../shared/index.js';
import { oneLine } from '../shared/index.js';
import { CreateTaskInput } from '../tasks/index.js';

export const MeetingFolder = z
  .object({ id: Id, name: z.string(), parentId: Id.nullable(), teamIds: z.array(Id).openapi({ description: 'Empty = open to the workspace' }) })
  .openapi('MeetingFolder');
export type MeetingFolder = z.infer<typeof MeetingFolder>;

const Clock = z
  .string()
  .regex(/^\d{2,}:[0-5]\d:[0-5]\d$/, 'must be hh:mm:ss')
  .openapi({ description: 'Offset from the start of the recording, hh:mm:ss', example: '00:04:12' });

export const ActionItem = z
  .object({
    text: z.string(),
    owner: z.string(),
    due: Day.nullable(),
    taskId: Id.nullable(),
  })
  .openapi('ActionItem');

export const MeetingSummary = z
  .object({
    overview: z.string(),
    topics: z.array(z.object({ title: z.string(), points: z.array(z.string()) })),
    decisions: z.array(z.string()),
    actionItems: z.array(ActionItem),
    generatedAt: Ts,
  })
  .openapi('MeetingSummary');
export type MeetingSummary = z.infer<typeof MeetingSummary>;

export const MEETING_STATUSES = ['recording', 'transcribing', 'done', 'failed'] as const;

export const Meeting = z
  .object({
    id: Id,
    title: z.string(),
    url: z.string(),
    folderId: Id.nullable().openapi({ description: 'null for a personal meeting' }),
    projectId: Id.nullable(),
    createdBy: Id,
    startedAt: Ts,
    endedAt: Ts.nullable().openapi({ description: 'null while the meeting goes on' }),
    status: z.string().openapi({ description: 'recording, transcribing, done, failed (others may appear)' }),
    participants: z.array(z.string()).openapi({ description: 'Display names' }),
    transcriptReady: z.boolean(),
    hasSummary: z.boolean(),
  })
  .openapi('Meeting');
export type Meeting = z.infer<typeof Meeting>;

export const MeetingWithSummary = Meeting.extend({
  summary: MeetingSummary.nullable().openapi({ description: 'null until a summary is generated' }),
}).openapi('MeetingWithSummary');

export type MeetingWithSummary = z.infer<typeof MeetingWithSummary>;

export const Replica = z.object({ speaker: z.string(), start: Clock, end: Clock, text: z.string() }).openapi('Replica');
export type Replica = z.infer<typeof Replica>;
export const Transcript = z.object({ meetingId: Id, replicas: z.array(Replica) }).openapi('Transcript');
export type Transcript = z.infer<typeof Transcript>;

export const ListMeetingsQuery = z
  .strictObject({
    folderId: Id.optional().openapi({ description: 'Meetings of the folder; `personal` = your personal meetings' }),
    projectId: Id.optional(),
    status: z.string().min(1).max(50).optional(),
    from: Day.optional().openapi({ description: "First meeting day, inclusive, in the workspace's time zone" }),
    to: Day.optional().openapi({ description: "Last meeting day, inclusive, in the workspace's time zone" }),
    q: z.string().trim().min(1).max(200).optional().openapi({ description: 'Search in title and summary' }),
    limit: Limit,
    cursor: Cursor.optional(),
  })
  .openapi('ListMeetingsQuery');
export type ListMeetingsQuery = z.infer<typeof ListMeetingsQuery>;

export const TranscriptFormatQuery = z.strictObject({ format: z.enum(['json', 'text']).default('json') }).openapi('TranscriptFormatQuery');

// Operator inputs.
const name = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

export const CreateMeetingFolderInput = z
  .strictObject({
    name,
    parentId: Id.nullable().default(null),
    teamIds: z.array(Id).max(100).default([]).openapi({ description: 'Empty = open to the workspace' }),
  })
  .openapi('CreateMeetingFolderInput');
export type CreateMeetingFolderInput = z.infer<typeof CreateMeetingFolderInput>;

export const CreateMeetingInput = z
  .strictObject({
    title: z.string().trim().min(1).max(500),
    url: z.string().max(2000).default(''),
    folderId: Id.nullable().default(null).openapi({ description: 'null = personal meeting of createdBy' }),
    projectId: Id.nullable().default(null),
    createdBy: Id,
    startedAt: InputTs,
    endedAt: InputTs.nullable().default(null),
    status: z.string().min(1).max(50).default('done'),
    participants: z.array(z.string().max(200)).max(500).default([]),
    summary: z
      .strictObject({
        overview: z.string().max(100_000).default(''),
        topics: z.array(z.strictObject({ title: z.string().max(500), points: z.array(z.string().max(5000)).default([]) })).default([]),
        decisions: z.array(z.string().max(5000)).default([]),
        actionItems: z
          .array(
            z.strictObject({
              text: z.string().min(1).max(5000),
              owner: z.string().max(200).default(''),
              due: Day.nullable().default(null),
              taskId: Id.nullable().default(null).openapi({ description: 'Task id or key the agreement is about' }),
            }),
          )
          .default([]),
        generatedAt: InputTs.optional(),
      })
      .nullable()
      .default(null),
    transcript: z
      .array(z.strictObject({ speaker: z.string().max(200), start: Clock, end: Clock, text: z.string().max(100_000) }))
      .max(100_000)
      .nullable()
      .default(null),
  })
  .openapi('CreateMeetingInput');
export type CreateMeetingInput = z.infer<typeof CreateMeetingInput>;

/**
 * A task made from a meeting agreement: the body of POST /tasks, with what the agreement supplies made optional.
 * title defaults to the agreement's text, assignees to its owner (when the name matches one person), dueDate to its
 * due day, and the place to the meeting's project.
 */
export const TaskFromAgreementInput = CreateTaskInput.extend({
  title: oneLine(500).optional().openapi({ description: "Default: the agreement's text (first 500 characters, one line)" }),
}).openapi('TaskFromAgreementInput');

export type TaskFromAgreementInput = z.infer<typeof TaskFromAgreementInput>;
