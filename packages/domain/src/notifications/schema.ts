import { Id, PageQuery, Ts, z } from '../shared/index.js';

export const NOTIFICATION_KINDS = ['assigned', 'comment', 'mention', 'reply'] as const;
export const NotificationKind = z.enum(NOTIFICATION_KINDS);
export type NotificationKind = z.infer<typeof NotificationKind>;

export const Notification = z
  .object({
    id: Id,
    kind: NotificationKind.openapi({
      description: '`assigned` (made an assignee), `comment` (on a task you wrote or are assigned to), `mention` (@login), `reply` (answer to your comment)',
    }),
    taskId: Id,
    commentId: Id.nullable().openapi({ description: 'The comment that caused it; null for `assigned`' }),
    actorId: Id.openapi({ description: 'Who acted' }),
    createdAt: Ts.openapi({ description: 'When the event happened' }),
    read: z.boolean(),
  })
  .openapi('Notification');
export type Notification = z.infer<typeof Notification>;

const flag = z.enum(['true', 'false']).transform((v) => v === 'true');

export const ListNotificationsQuery = z.strictObject({
  unread: flag.optional().openapi({ type: 'string', enum: ['true', 'false'], description: '`true`: only unread; `false`: only read; absent: all' }),
  ...PageQuery,
});

export type ListNotificationsQuery = z.infer<typeof ListNotificationsQuery>;

export const MarkNotificationsReadInput = z
  .strictObject({
    ids: z.array(Id).min(1, 'must name at least one notification').max(500, 'at most 500 ids').optional()
      .openapi({ description: 'Notifications to mark read' }),
    all: z.literal(true).optional().openapi({ description: '`true`: mark every unread notification of the inbox read' }),
  })
  .superRefine((v, ctx) => {
    if (v.ids === undefined && v.all === undefined) ctx.addIssue({ code: 'custom', path: ['ids'], message: 'required: send ids (a list) or all: true' });
    if (v.ids !== undefined && v.all !== undefined) ctx.addIssue({ code: 'custom', path: ['all'], message: 'send either ids or all, not both' });
  })
  .openapi('MarkNotificationsReadInput');
export type MarkNotificationsReadInput = z.infer<typeof MarkNotificationsReadInput>;

export const MarkReadResult = z
  .object({ marked: z.number().int().openapi({ description: 'How many unread notifications became read' }) })
  .openapi('MarkReadResult');
export type MarkReadResult = z.infer<typeof MarkReadResult>;

/** Operator listing: newest first, at most `limit`. */
export const UserNotificationsQuery = z.strictObject({
  unread: flag.optional(),
  limit: z.coerce.number().int('must be an integer').min(1, 'must be at least 1').max(10_000, 'must be at most 10000').default(1000),
});

export type UserNotificationsQuery = z.infer<typeof UserNotificationsQuery>;
