import { CHANNELS, Cursor, Id, Limit, Moment, Ts, z } from '../shared/index.js';

/** An activity entry's channel, key and OAuth client; the automation for the worker's changes. */
export const ActivityVia = z
  .object({
    channel: z.enum(CHANNELS).openapi({ description: '`rest`, `mcp`, `worker` (an automation) or `operator`' }),
    keyId: Id.nullable().openapi({ description: 'The API key the change came with (null: operator or automation)' }),
    clientName: z.string().nullable().openapi({ description: 'The OAuth client\'s registered name when an agent signed in with OAuth' }),
    automationId: Id.nullable().openapi({ description: 'The automation that made the change (channel `worker`)' }),
  })
  .openapi('ActivityVia');

export const FieldChangeSchema = z
  .object({
    field: z.string().openapi({ description: 'The Task (or page) field, e.g. title, assigneeIds, status, description', example: 'priority' }),
    from: z.unknown().openapi({ description: 'Value before (null when newly set); long texts are `{characters}` markers' }),
    to: z.unknown().openapi({ description: 'Value after' }),
  })
  .openapi('FieldChange');

export const ActivityEntry = z
  .object({
    id: Id,
    at: Ts,
    actor: z
      .object({ id: Id, name: z.string(), login: z.string() })
      .nullable()
      .openapi({ description: 'The user who acted (for an automation: its owner); null for the operator' }),
    via: ActivityVia,
    task: z.object({ id: Id, key: z.string() }).nullable().openapi({ description: 'The task, for task entries' }),
    doc: z.object({ id: Id }).nullable().openapi({ description: 'The page, for page entries' }),
    action: z.string().openapi({
      description:
        'task.created, task.updated, task.moved, task.archived, task.restored, task.deleted, task.created_from_agreement, ' +
        'comment.created, time.logged, attachment.added, doc.created, doc.updated',
      example: 'task.updated',
    }),
    changes: z.array(FieldChangeSchema),
  })
  .openapi('ActivityEntry');
export type ActivityEntry = z.infer<typeof ActivityEntry>;

/**
 * The activity lists count at most this many matches. The log grows without bound (a busy workspace writes thousands
 * of entries a day) and the page itself is an index range, so an exact count of a wide period would cost a hundredfold
 * the page; counting up to this many costs about ten pages, whatever the period.
 */
export const ACTIVITY_COUNT_CAP = 1000;

/** The list envelope of the activity routes: `total` stops at ACTIVITY_COUNT_CAP, and `totalCapped` says when it did. */
export const ActivityPage = z
  .object({
    data: z.array(ActivityEntry),
    nextCursor: z.string().nullable().openapi({ description: 'null on the last page' }),
    total: z.number().int().openapi({
      description: `Count of entries matching the filters, exact up to ${ACTIVITY_COUNT_CAP}; when more match it is ${ACTIVITY_COUNT_CAP} and \`totalCapped\` is true`,
    }),
    totalCapped: z.boolean().openapi({
      description:
        `true when more than ${ACTIVITY_COUNT_CAP} entries match: \`total\` is then a lower bound (page on with \`nextCursor\` to see them ` +
        'all, or narrow the period). The count stops there so that a wide `since` costs no more than a narrow one.',
    }),
  })
  .openapi('ActivityPage');
export type ActivityPage = z.infer<typeof ActivityPage>;

const range = {
  since: Moment.optional().openapi({ description: 'Entries at or after this moment (no offset: the workspace\'s time zone)' }),
  until: Moment.optional().openapi({ description: 'Entries before this moment (no offset: the workspace\'s time zone)' }),
};
const page = { limit: Limit, cursor: Cursor.optional() };

export const TaskActivityQuery = z.strictObject({ ...page }).openapi('TaskActivityQuery');
export type TaskActivityQuery = z.infer<typeof TaskActivityQuery>;

export const ActivityQuery = z
  .strictObject({
    ...range,
    projectId: z.string().min(1).max(100).optional().openapi({ description: 'Project id or key' }),
    actorId: z.string().min(1).max(100).optional().openapi({ description: 'User id, login or `me`' }),
    taskId: z.string().min(1).max(100).optional().openapi({ description: 'Task id or key' }),
    ...page,
  })
  .openapi('ActivityQuery');
export type ActivityQuery = z.infer<typeof ActivityQuery>;

export const AuditEntry = z
  .object({
    id: Id,
    at: Ts,
    workspaceId: Id.nullable(),
    actor: z.object({ kind: z.enum(['operator', 'user', 'anonymous']), id: Id.nullable() }).openapi({ description: 'The operator token, a user, or anonymous (an OAuth client registering itself)' }),
    via: ActivityVia,
    action: z.string().openapi({ example: 'key.issued' }),
    target: z.object({ type: z.string(), id: Id }),
    details: z.record(z.string(), z.unknown()).openapi({ description: 'Names, scopes and settings; never a secret' }),
  })
  .openapi('AuditEntry');
export type AuditEntry = z.infer<typeof AuditEntry>;

export const AuditQuery = z
  .strictObject({ ...range, workspaceId: Id.optional(), action: z.string().min(1).max(100).optional(), ...page })
  .openapi('AuditQuery');
export type AuditQuery = z.infer<typeof AuditQuery>;
