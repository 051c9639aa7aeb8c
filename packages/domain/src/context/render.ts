import { htmlToMarkdown, wallClock } from '../shared/index.js';
import type { CommentRecord } from '../comments/index.js';
import type { UserRecord } from '../keys/index.js';
import type { TaskDetails, TaskRecord } from '../tasks/index.js';

export interface ContextInput {
  task: TaskRecord;
  details: TaskDetails;
  projectName: string;
  boardName: string;
  subtasks: TaskRecord[];
  parent: TaskRecord | null;
  comments: CommentRecord[];
  totalComments: number;
  users: Map<string, UserRecord>;
  /** The workspace's time zone: every time on the page is in it, with its offset. */
  timezone: string;
  docs?: Array<{ id: string; title: string; markdown: string }> | undefined;
  agreements?: Array<{ meetingId: string; meetingTitle: string; day: string; text: string; owner: string; due: string | null }> | undefined;
}

const who = (users: Map<string, UserRecord>, id: string | null): string => {
  if (!id) return 'nobody';
  const u = users.get(id);
  return u ? `${u.name} (@${u.login})` : id;
};

const hours = (s: number): string => `${Math.round((s / 3600) * 100) / 100}h`;

/** Renders everything an agent or a person needs about a task as one Markdown document. */
export function renderTaskContext(c: ContextInput): string {
  const t = c.task;
  const day = (ms: number | null): string => (ms === null ? '-' : wallClock(ms, c.timezone));
  const out: string[] = [];
  out.push(`# ${t.key}: ${t.title}`, '');
  out.push('## Properties', '');
  const props: Array<[string, string]> = [
    ['Id', t.id],
    ['Project', c.projectName],
    ['Board', c.boardName],
    ['Status', `${t.statusName} (${t.statusCategory})`],
    ['Type', t.type],
    ['Priority', t.priority],
    ['Assignee', who(c.users, t.assigneeId)],
    ['Assignees', t.assigneeIds.length ? t.assigneeIds.map((id) => who(c.users, id)).join(', ') : 'none'],
    ['Reporter', who(c.users, t.reporterId)],
    ['Labels', t.labels.length ? t.labels.join(', ') : 'none'],
    ['Due date', t.dueDate ?? 'none'],
    ['Parent', c.parent ? `${c.parent.key}: ${c.parent.title}` : 'none'],
    ['Estimate', hours(t.timeEstimateSeconds)],
    ['Time spent', hours(t.timeSpentSeconds)],
    ['Archived', t.archivedAt === null ? 'no' : `yes, ${day(t.archivedAt)}`],
    ['Done at', day(t.doneAt)],
    ['Created', day(t.createdAt)],
    ['Updated', day(t.updatedAt)],
  ];
  for (const [k, v] of props) out.push(`- **${k}:** ${v}`);
  out.push('', '## Description', '', htmlToMarkdown(t.descriptionHtml) || '_No description._', '');
  out.push('## Checklist', '');
  if (t.checklist.length) for (const i of t.checklist) out.push(`- [${i.done ? 'x' : ' '}] ${i.text}`);
  else out.push('_No checklist._');
  out.push('', '## Subtasks', '');
  if (c.subtasks.length) for (const s of c.subtasks) out.push(`- ${s.key}: ${s.title} (${s.statusName}, ${s.statusCategory})`);
  else out.push('_No subtasks._');
  out.push('', `## Discussion (${c.comments.length} of ${c.totalComments} comments, latest last)`, '');
  if (c.comments.length) {
    for (const cm of c.comments) {
      const reply = cm.replyTo ? ` in reply to ${cm.replyTo}` : '';
      out.push(`### Comment ${cm.id} by ${who(c.users, cm.authorId)} at ${day(cm.createdAt)}${reply}`, '', cm.text, '');
    }
  } else out.push('_No comments._', '');
  if (c.docs !== undefined) {
    out.push('## Linked documents', '');
    if (c.docs.length) for (const d of c.docs) out.push(`### ${d.title} (${d.id})`, '', d.markdown, '');
    else out.push('_No linked documents._', '');
  }
  if (c.agreements !== undefined) {
    out.push('## Meeting agreements', '');
    if (c.agreements.length) {
      for (const a of c.agreements) {
        const due = a.due ? `, due ${a.due}` : '';
        out.push(`- ${a.text} (owner ${a.owner || 'unassigned'}${due}; meeting "${a.meetingTitle}" ${a.day}, ${a.meetingId})`);
      }
    } else out.push('_No meeting agreements._');
    out.push('');
  }
  return out.join('\n').trimEnd() + '\n';
}
