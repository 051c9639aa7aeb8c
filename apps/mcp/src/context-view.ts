import type { context } from '@tt/domain';
import { BUDGET } from './answer.js';
import { person, when } from './render.js';
import { clip, fence, fenceInline, plain } from './untrusted.js';

type View = context.TaskParts;

/** Per-part limits that keep a whole task under the budget: long parts are cut with a note, lists say what is left. */
const DESCRIPTION_MAX = 6000;
const COMMENT_MAX = 1500;
const COMMENTS_BUDGET = 9000;
const LIST_MAX = 30;

/** The same clipped texts the Markdown shows, as data (JSON format). */
export function taskViewData(v: View) {
  const t = v.task;
  const author = (id: string) => v.users.get(id)?.login ?? null;
  return {
    task: {
      id: t.id, key: t.key, title: t.title, project: v.project, board: v.board, statusId: t.statusId, status: t.statusName,
      category: t.statusCategory, type: t.type, priority: t.priority, assignees: t.assigneeIds.map((id) => ({ id, login: author(id) })),
      reporter: { id: t.reporterId, login: author(t.reporterId) }, labels: t.labels, dueDate: t.dueDate, parent: v.parent ? { id: v.parent.id, key: v.parent.key } : null,
      archived: t.archivedAt !== null, createdAt: t.createdAt, updatedAt: t.updatedAt,
    },
    ...(v.description !== undefined ? { description: clip(v.description, DESCRIPTION_MAX).text } : {}),
    checklist: t.checklist.slice(0, LIST_MAX).map((c) => ({ id: c.id, text: c.text.slice(0, 300), done: c.done })),
    ...(v.subtasks ? { subtasks: v.subtasks.slice(0, LIST_MAX).map((s) => ({ id: s.id, key: s.key, title: s.title, status: s.statusName, category: s.statusCategory })) } : {}),
    ...(v.comments
      ? { commentList: v.comments.rows.map((c) => ({ id: c.id, author: author(c.authorId), replyTo: c.replyTo, createdAt: c.createdAt, text: clip(c.text, COMMENT_MAX).text })) }
      : {}),
    ...(v.docs ? { docs: v.docs.map((d) => ({ id: d.id, spaceId: d.spaceId, title: d.title, excerpt: d.excerpt, length: d.length })) } : {}),
    ...(v.agreements ? { agreements: v.agreements.slice(0, LIST_MAX) } : {}),
  };
}

/** The task as Markdown: server structure outside, human text in untrusted-text blocks. */
export function renderTaskView(v: View): { text: string; shownComments: number } {
  const t = v.task;
  const out: string[] = [`# ${t.key} (id ${t.id})`, '', `Title: ${fenceInline('title', t.title, { id: t.id })}`, '', '## Properties', ''];
  const props: Array<[string, string]> = [
    ['Project', v.project ? `${v.project.key} ${plain(v.project.name)} (${v.project.id})` : t.projectId],
    ['Board', v.board ? `${plain(v.board.name)} (${v.board.id})` : t.boardId],
    ['Column', `${plain(t.statusName)} (${t.statusCategory}, ${t.statusId})`],
    ['Type / priority', `${t.type} / ${t.priority}`],
    ['Assignees', t.assigneeIds.length ? t.assigneeIds.map((id) => person(v.users, id)).join(', ') : 'none'],
    ['Reporter', person(v.users, t.reporterId)],
    ['Labels', t.labels.length ? t.labels.map((l) => plain(l)).join(', ') : 'none'],
    ['Due date', t.dueDate ?? 'none'],
    ['Parent', v.parent ? `${v.parent.key} ${fenceInline('title', v.parent.title, { id: v.parent.id })}` : 'none'],
    ['Archived', t.archivedAt === null ? 'no' : `yes, ${when(t.archivedAt)}`],
    ['Created / updated', `${when(t.createdAt)} / ${when(t.updatedAt)}`],
  ];
  for (const [k, val] of props) out.push(`- **${k}:** ${val}`);
  if (v.description !== undefined) {
    out.push('', '## Description', '');
    const d = clip(v.description, DESCRIPTION_MAX, 'cut to keep the answer short');
    out.push(v.description ? fence('description', d.text, { id: t.id, author: `@${v.users.get(t.reporterId)?.login ?? t.reporterId}` }) : '_No description._');
  }
  out.push('', `## Checklist (${t.checklist.filter((c) => c.done).length} of ${t.checklist.length} done)`, '');
  if (!t.checklist.length) out.push('_No checklist._');
  for (const c of t.checklist.slice(0, LIST_MAX)) out.push(`- [${c.done ? 'x' : ' '}] ${fenceInline('checklist-item', c.text.slice(0, 300), { id: c.id })}`);
  if (t.checklist.length > LIST_MAX) out.push(`- … ${t.checklist.length - LIST_MAX} more items`);
  if (v.subtasks) {
    out.push('', `## Subtasks (${v.subtasks.length})`, '');
    if (!v.subtasks.length) out.push('_No subtasks you can see._');
    for (const s of v.subtasks.slice(0, LIST_MAX)) out.push(`- **${s.key}** ${fenceInline('title', s.title, { id: s.id })} — ${plain(s.statusName)} (${s.statusCategory})`);
    if (v.subtasks.length > LIST_MAX) out.push(`- … ${v.subtasks.length - LIST_MAX} more: search_tasks with parent ${t.key}`);
  }
  if (v.docs) {
    out.push('', `## Linked pages (${v.docs.length})`, '');
    if (!v.docs.length) out.push('_No linked pages._');
    for (const d of v.docs.slice(0, LIST_MAX)) {
      const more = d.length > d.excerpt.length ? ` (${d.length} characters; get_doc ${d.id} reads it)` : '';
      out.push(`- Page ${d.id} in space ${d.spaceId}: ${fenceInline('doc-title', d.title, { id: d.id })}${more}`, `  ${fenceInline('doc-excerpt', d.excerpt, { id: d.id })}`);
    }
  }
  if (v.agreements) {
    out.push('', `## Meeting agreements (${v.agreements.length})`, '');
    if (!v.agreements.length) out.push('_No meeting agreements._');
    for (const a of v.agreements.slice(0, LIST_MAX)) {
      out.push(`- Meeting ${a.meetingId} on ${a.day} ${fenceInline('meeting-title', a.meetingTitle, { id: a.meetingId })}; owner ${plain(a.owner) || 'unassigned'}${a.due ? `, due ${a.due}` : ''}:`);
      out.push(`  ${fenceInline('agreement', a.text.slice(0, 500), { id: a.meetingId })}`);
    }
  }
  if (v.comments) {
    const c = v.comments;
    const rest = BUDGET - 2000 - out.join('\n').length;
    const room = Math.min(COMMENTS_BUDGET, rest);
    const blocks: string[] = [];
    let used = 0;
    let shown = 0;
    for (const cm of c.rows) {
      const who = v.users.get(cm.authorId);
      const head = `### Comment ${cm.id} by ${person(v.users, cm.authorId)} at ${when(cm.createdAt)}${cm.replyTo ? `, in reply to ${cm.replyTo}` : ''}`;
      const block = `${head}\n\n${fence('comment', clip(cm.text, COMMENT_MAX, 'cut').text, { id: cm.id, author: `@${who?.login ?? cm.authorId}` })}\n`;
      if (shown > 0 && used + block.length > room) break;
      blocks.push(block);
      used += block.length;
      shown++;
    }
    const cursorNote = c.nextCursor ? `Older comments: call get_task with commentsCursor "${c.nextCursor}".` : 'No older comments.';
    out.push('', `## Comments (newest first: ${shown} of ${c.total} shown)`, '', ...blocks, cursorNote);
    return { text: out.join('\n').trimEnd() + '\n', shownComments: shown };
  }
  return { text: out.join('\n').trimEnd() + '\n', shownComments: 0 };
}
