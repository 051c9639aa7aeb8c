import { describe, expect, it } from 'vitest';
import { commentRecipients } from './notifications.js';

const task = { reporterId: 'author', assigneeIds: ['a1', 'a2'] };
const kinds = (m: Map<string, string>) => Object.fromEntries([...m].sort());

describe('commentRecipients', () => {
  it('tells the task author and assignees of a plain comment, never its writer', () => {
    expect(kinds(commentRecipients({ authorId: 'a1', mentionIds: [] }, task, null))).toEqual({ a2: 'comment', author: 'comment' });
  });

  it('gives each person one kind, the most specific: reply over mention over comment', () => {
    const m = commentRecipients({ authorId: 'x', mentionIds: ['a1', 'author', 'outsider', 'answered'] }, task, 'answered');
    expect(kinds(m)).toEqual({ a1: 'mention', a2: 'comment', author: 'mention', outsider: 'mention', answered: 'reply' });
    const assigneeAnswered = commentRecipients({ authorId: 'x', mentionIds: ['a2'] }, task, 'a2');
    expect(assigneeAnswered.get('a2')).toBe('reply');
  });

  it('answering or mentioning oneself notifies nobody', () => {
    const m = commentRecipients({ authorId: 'author', mentionIds: ['author'] }, { reporterId: 'author', assigneeIds: ['author'] }, 'author');
    expect(m.size).toBe(0);
  });
});
