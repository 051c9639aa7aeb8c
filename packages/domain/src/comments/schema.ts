import { Id, Ts, z } from '../shared/index.js';

export const Comment = z
  .object({
    id: Id,
    taskId: Id,
    authorId: Id,
    text: z.string(),
    replyTo: Id.nullable(),
    mentionIds: z.array(Id).openapi({ description: 'Users resolved from @login mentions' }),
    createdAt: Ts,
  })
  .openapi('Comment');
export type Comment = z.infer<typeof Comment>;
export const CreateCommentInput = z
  .strictObject({
    text: z.string().trim().min(1, 'must not be empty').max(20_000, 'must be at most 20000 characters'),
    replyTo: Id.nullable().optional(),
  })
  .openapi('CreateCommentInput');
export type CreateCommentInput = z.infer<typeof CreateCommentInput>;
