import { changeLine, type context } from '@tt/domain';
import { person, when } from './render.js';
import { cutAt, cutPoint, fence, fenceInline, fenceLines, fenceTable } from './untrusted.js';

type View = context.TaskParts;

/** Lists stay short whatever the budget: the rest is named, with where to find it. */
const LIST_MAX = 30;

/**
 * How much of each long text an answer shows. Nothing is cut while the whole task fits the budget; see fitTaskView
 * for the order in which these tighten.
 */
export interface Cuts {
  /** Characters of the description, from `offset`. */
  description: number;
  /** Characters of each comment. */
  comment: number;
  /** Characters for all comments together; the newest come first, the others are reached by cursor. */
  comments: number;
}

export const NO_CUTS: Cuts = { description: Infinity, comment: Infinity, comments: Infinity };

/** A piece of a long text: what is shown, from where, and where the next call starts (null at the end). */
export interface Piece {
  text: string;
  offset: number;
  length: number;
  nextOffset: number | null;
}

/** The part of `text` from `offset` that fits in `max` characters, cut at a line or word end. */
export function piece(text: string, offset: number, max: number): Piece {
  // An offset between the halves of a pair starts on the whole code point.
  if (offset > 0 && offset < text.length && /[\uDC00-\uDFFF]/.test(text[offset]!) && /[\uD800-\uDBFF]/.test(text[offset - 1]!)) offset--;
  const rest = text.slice(offset);
  const end = cutPoint(rest, max);
  const nextOffset = offset + end < text.length ? offset + end : null;
  return { text: rest.slice(0, end), offset, length: text.length, nextOffset };
}

/** The exact call that reads on, as the cut notes and the task:// resource name it. */
export const readOn = (key: string, p: { offset: number; commentId?: string }): string =>
  `get_task {task: "${key}", ${p.commentId ? `commentId: "${p.commentId}", ` : ''}offset: ${p.offset}}`;

/** The note after a cut text; "cut" reads as it always has, the call is new. */
export const cutNote = (key: string, p: Piece, commentId?: string): string =>
  p.nextOffset === null ? '' : `[… ${p.length - p.nextOffset} more characters cut here; read on with ${readOn(key, { offset: p.nextOffset, ...(commentId ? { commentId } : {}) })}]`;

/** The description and comments as the cuts leave them. */
export function pieces(v: View, cuts: Cuts, offset: number) {
  const description = v.description !== undefined ? piece(v.description, offset, cuts.description) : undefined;
  const comments: Array<{ row: NonNullable<View['comments']>['rows'][number]; piece: Piece }> = [];
  let used = 0;
  for (const row of v.comments?.rows ?? []) {
    const p = piece(row.text, 0, cuts.comment);
    if (comments.length > 0 && used + p.text.length > cuts.comments) break;
    comments.push({ row, piece: p });
    used += p.text.length + 200;
  }
  return { description, comments };
}

/** The same texts the Markdown shows, as data (JSON format). */
export function taskViewData(v: View, cuts: Cuts, offset: number) {
  const t = v.task;
  const author = (id: string) => v.users.get(id)?.login ?? null;
  const { description, comments } = pieces(v, cuts, offset);
  return {
    task: {
      id: t.id, key: t.key, title: t.title, project: v.project, board: v.board, statusId: t.statusId, status: t.statusName,
      category: t.statusCategory, type: t.type, priority: t.priority, assignees: t.assigneeIds.map((id) => ({ id, login: author(id) })),
      reporter: { id: t.reporterId, login: author(t.reporterId) }, labels: t.labels, dueDate: t.dueDate, parent: v.parent ? { id: v.parent.id, key: v.parent.key } : null,
      archived: t.archivedAt !== null, createdAt: t.createdAt, updatedAt: t.updatedAt,
    },
    ...(description ? { description: description.text } : {}),
    checklist: t.checklist.slice(0, LIST_MAX).map((c) => ({ id: c.id, text: cutAt(c.text, 300), done: c.done })),
    // Whether the checklist above is whole (no item left out or shortened): only a whole one may be written back.
    checklistComplete: t.checklist.length <= LIST_MAX && t.checklist.every((c) => c.text.length <= 300),
    ...(v.subtasks ? { subtasks: v.subtasks.slice(0, LIST_MAX).map((s) => ({ id: s.id, key: s.key, title: s.title, status: s.statusName, category: s.statusCategory })) } : {}),
    ...(v.comments
      ? {
        commentList: comments.map(({ row: c, piece: p }) => ({
          id: c.id, author: author(c.authorId), replyTo: c.replyTo, createdAt: c.createdAt, text: p.text, length: p.length, nextOffset: p.nextOffset,
        })),
      }
      : {}),
    ...(v.docs ? { docs: v.docs.map((d) => ({ id: d.id, spaceId: d.spaceId, title: d.title, excerpt: d.excerpt, length: d.length })) } : {}),
    ...(v.agreements ? { agreements: v.agreements.slice(0, LIST_MAX) } : {}),
    ...(v.history ? { history: v.history } : {}),
  };
}

const at = (v: View, id: string) => `@${v.users.get(id)?.login ?? id}`;

/** The task's properties: ids, keys, logins, dates and enums outside; its names in one block. */
function properties(v: View): string[] {
  const t = v.task;
  const names = [
    ...(v.project ? [`Project: ${v.project.name}`] : []), ...(v.board ? [`Board: ${v.board.name}`] : []), `Column: ${t.statusName}`,
    `Assignees: ${t.assigneeIds.length ? t.assigneeIds.map((id) => person(v.users, id)).join(', ') : 'none'}`,
    `Reporter: ${person(v.users, t.reporterId)}`, `Labels: ${t.labels.length ? t.labels.join(', ') : 'none'}`,
  ];
  return [
    `- **Project:** ${v.project ? `${v.project.key} (${v.project.id})` : t.projectId}; board ${t.boardId}; column ${t.statusId} (${t.statusCategory})`,
    `- **Type / priority:** ${t.type} / ${t.priority}`,
    `- **Assignees:** ${t.assigneeIds.length ? t.assigneeIds.map((id) => at(v, id)).join(', ') : 'none'}; **reporter:** ${at(v, t.reporterId)}`,
    `- **Due date:** ${t.dueDate ?? 'none'}`,
    `- **Parent:** ${v.parent ? `${v.parent.key} ${fenceInline('title', v.parent.title, { id: v.parent.id })}` : 'none'}`,
    `- **Archived:** ${t.archivedAt === null ? 'no' : `yes, ${when(t.archivedAt, v.timezone)}`}`,
    `- **Created / updated:** ${when(t.createdAt, v.timezone)} / ${when(t.updatedAt, v.timezone)}`,
    '', fenceLines('names', names, { id: t.id }),
  ];
}

/** The task as Markdown: server structure outside, person-written text in untrusted-text blocks. */
export function renderTaskView(v: View, cuts: Cuts = NO_CUTS, offset = 0): { text: string; shownComments: number; nextOffset: number | null } {
  const t = v.task;
  const out: string[] = [`# ${t.key} (id ${t.id})`, '', `Title: ${fenceInline('title', t.title, { id: t.id })}`, '', '## Properties', '', ...properties(v)];
  const { description, comments } = pieces(v, cuts, offset);
  if (description) {
    const range = offset > 0 || description.nextOffset !== null ? ` (characters ${offset}-${offset + description.text.length} of ${description.length})` : '';
    out.push('', `## Description${range}`, '');
    if (!description.length) out.push('_No description._');
    else if (!description.text) out.push(`_Nothing after character ${offset}: the description has ${description.length}._`);
    else out.push(fence('description', description.text, { id: t.id, author: at(v, t.reporterId) }), ...(description.nextOffset !== null ? [cutNote(t.key, description)] : []));
  }
  // A continuation (offset > 0) reads on in the description; the rest was in the first answer.
  if (offset === 0) out.push(...rest(v));
  if (v.comments) {
    const c = v.comments;
    const blocks = comments.map(({ row: cm, piece: p }) => {
      const head = `### Comment ${cm.id} by ${at(v, cm.authorId)} at ${when(cm.createdAt, v.timezone)}${cm.replyTo ? `, in reply to ${cm.replyTo}` : ''}`;
      const note = p.nextOffset !== null ? `\n${cutNote(t.key, p, cm.id)}` : '';
      return `${head}\n\n${fence('comment', p.text, { id: cm.id, author: at(v, cm.authorId) })}${note}\n`;
    });
    const cursorNote = c.nextCursor ? `Older comments: call get_task with commentsCursor "${c.nextCursor}".` : 'No older comments.';
    out.push('', `## Comments (newest first: ${comments.length} of ${c.total} shown)`, '', ...blocks, cursorNote);
  }
  return { text: out.join('\n').trimEnd() + '\n', shownComments: comments.length, nextOffset: description?.nextOffset ?? null };
}

/** Checklist, subtasks, linked pages and agreements: short lists, capped by count. */
function rest(v: View): string[] {
  const t = v.task;
  const out: string[] = [];
  out.push('', `## Checklist (${t.checklist.filter((c) => c.done).length} of ${t.checklist.length} done)`, '');
  if (!t.checklist.length) out.push('_No checklist._');
  for (const c of t.checklist.slice(0, LIST_MAX)) out.push(`- [${c.done ? 'x' : ' '}] ${fenceInline('checklist-item', cutAt(c.text, 300), { id: c.id })}`);
  if (t.checklist.length > LIST_MAX) out.push(`- … ${t.checklist.length - LIST_MAX} more items`);
  if (v.subtasks) {
    out.push('', `## Subtasks (${v.subtasks.length})`, '');
    if (!v.subtasks.length) out.push('_No subtasks you can see._');
    else out.push(fenceTable(['Key', 'Title', 'Column', 'Category'], v.subtasks.slice(0, LIST_MAX).map((s) => [s.key, s.title, s.statusName, s.statusCategory])));
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
      const owner = a.owner.trim() ? fenceInline('name', a.owner) : 'unassigned';
      out.push(`- Meeting ${a.meetingId} on ${a.day} ${fenceInline('meeting-title', a.meetingTitle, { id: a.meetingId })}; ${a.due ? `due ${a.due}; ` : ''}owner ${owner}:`);
      out.push(`  ${fenceInline('agreement', cutAt(a.text, 500), { id: a.meetingId })}`);
    }
  }
  if (v.history) {
    // Changes carry person-written values (titles, labels, checklist items): one table block.
    out.push('', `## History (latest ${v.history.length}, newest first; list_activity with task ${t.key} reads older)`, '');
    if (!v.history.length) out.push('_No recorded changes._');
    else {
      out.push(fenceTable(['When', 'Who', 'Via', 'Action', 'Changes'], v.history.map((e) => [
        when(e.at, v.timezone), e.actor ? `@${e.actor.login}` : 'operator', [e.via.channel, e.via.clientName].filter(Boolean).join(', '), e.action,
        e.changes.map((c) => changeLine(c, 100)).join('; '),
      ])));
    }
  }
  return out;
}

/** What an answer may hold, with room for the last guard's note. */
const LIMIT = 19_500;
const COMMENT_FALLBACK = 1500;
const COMMENTS_FALLBACK = 9000;

/**
 * The cuts for one answer, loosest first: nothing is cut while the whole task fits; then each comment falls back to
 * 1 500 characters (many comments); then the description gets the room the rest leaves, and the comments together
 * 9 000. `size` measures an answer in the caller's format.
 */
export function fitCuts(size: (cuts: Cuts) => number): Cuts {
  if (size(NO_CUTS) <= LIMIT) return NO_CUTS;
  const fallback = { ...NO_CUTS, comment: COMMENT_FALLBACK };
  if (size(fallback) <= LIMIT) return fallback;
  const tight = { description: 0, comment: COMMENT_FALLBACK, comments: COMMENTS_FALLBACK };
  let room = Math.max(1000, LIMIT - size(tight));
  for (let i = 0; i < 4; i++) {
    const over = size({ ...tight, description: room }) - LIMIT;
    if (over <= 0 || room <= 1000) break;
    room = Math.max(1000, room - over - 100);
  }
  return { ...tight, description: room };
}
