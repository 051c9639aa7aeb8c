import type { Comment } from './schema.js';
import type { CommentRecord } from './ports.js';

export const presentComment = (c: CommentRecord): Comment => ({
  id: c.id, taskId: c.taskId, authorId: c.authorId, text: c.text, replyTo: c.replyTo, mentionIds: c.mentionIds, createdAt: c.createdAt,
});
