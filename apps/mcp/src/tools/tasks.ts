import { z } from 'zod';
import { type Actor, Category, type Category as CategoryT, context, Day, type Deps, invalid, Priority, projects, TaskType } from '@tt/domain';
import { answer, fitPage, type Format, LIST_BUDGET, orNull } from '../answer/answer.js';
import { resolveProject, resolveTask, resolveUser } from '../resolve.js';
import { taskData, taskTableWithin, loginsById, when } from '../answer/render.js';
import { type SearchPage, searchInOrder, type TaskFilters } from '../search.js';
import { type Cuts, cutNote, fitCuts, piece, pieces, renderTaskView, taskViewData } from '../answer/context-view.js';
import { fence, JSON_FENCE_CHARS, jsonText } from '../answer/untrusted.js';
import { defineTool, pageNote } from '../tool.js';
import { cursor, format, FormatOut, READ } from './args.js';
import { TASK_VIEW_URI } from '../views/index.js';

const TASK_SECTIONS = context.TASK_SECTIONS;
const oneOrMany = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).min(1).max(50)]);
const list = <T>(v: T | T[] | undefined): T[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);

const ORDERS = { created: 'created', priority: 'priority', dueDate: 'dueDate', updated: 'updated' } as const;

const FILTERS = [
  'query', 'project', 'assignee', 'category', 'label', 'status', 'priority', 'type', 'dueBefore', 'dueAfter', 'openOnly', 'parent', 'updatedSince',
  'createdSince', 'createdBefore',
] as const;

export const searchTasks = defineTool({
  name: 'search_tasks',
  title: 'Search tasks',
  scope: 'tasks:read',
  toolset: 'tasks',
  description: 'Finds tasks by filters (AND; a list means any of them); no filter: your open tasks.',
  input: z.strictObject({
    query: z.string().trim().min(1).max(200).optional().describe('Words in title, key or description'),
    project: z.string().min(1).max(100).optional().describe('Project key or id'),
    assignee: z.string().min(1).max(200).optional().describe('`me`, login, name, id or `none`'),
    category: oneOrMany(Category).optional(),
    status: oneOrMany(z.string().min(1).max(100)).optional().describe('Column names, ids or categories'),
    openOnly: z.boolean().optional().describe('Only tasks not done'),
    priority: oneOrMany(Priority).optional(),
    type: oneOrMany(TaskType).optional(),
    label: oneOrMany(z.string().min(1).max(100)).optional().describe('The task has all'),
    dueBefore: Day.optional().describe('Due on or before, YYYY-MM-DD'),
    dueAfter: Day.optional().describe('Due on or after, YYYY-MM-DD'),
    parent: z.string().min(1).max(100).optional().describe('Parent task key or id, or `none`'),
    updatedSince: z.string().min(1).max(40).optional().describe('Changed after: ISO 8601 or epoch ms'),
    createdSince: z.string().min(1).max(40).optional().describe('Created at or after: ISO 8601'),
    createdBefore: z.string().min(1).max(40).optional().describe('Created before: ISO 8601'),
    order: z.enum(['created', 'priority', 'dueDate', 'updated']).optional().describe('Default created (oldest first)'),
    limit: z.number().int().min(1).max(100).default(25),
    cursor: cursor(),
    format,
  }),
  output: z.object({
    format: FormatOut,
    tasks: z.array(z.object({ id: z.string(), key: z.string() })),
    total: z.number(),
    nextCursor: orNull(z.string()),
    defaultedToMyOpenTasks: z.boolean(),
  }),
  annotations: READ,
  async run(args, { actor, deps }) {
    const noFilter = FILTERS.every((k) => args[k] === undefined);
    const filters: TaskFilters = { orderBy: ORDERS[args.order ?? 'created'] };
    if (args.query !== undefined) filters.q = args.query;
    const project = args.project !== undefined ? await resolveProject(actor, args.project, deps) : undefined;
    if (project) filters.projectId = project.id;
    if (args.assignee !== undefined) {
      filters.assigneeId = args.assignee.toLowerCase() === 'none' ? 'none' : await resolveUser(actor, args.assignee, deps, 'assignee');
    }
    if (args.label !== undefined) filters.label = list(args.label)!.join(',');
    if (args.priority !== undefined) filters.priority = list(args.priority)!.join(',');
    if (args.type !== undefined) filters.type = list(args.type)!.join(',');
    if (args.dueBefore !== undefined) filters.dueBefore = args.dueBefore;
    if (args.dueAfter !== undefined) filters.dueAfter = args.dueAfter;
    if (args.updatedSince !== undefined) filters.updatedSince = args.updatedSince;
    if (args.createdSince !== undefined) filters.createdSince = args.createdSince;
    if (args.createdBefore !== undefined) filters.createdBefore = args.createdBefore;
    if (args.parent !== undefined) filters.parentId = args.parent.toLowerCase() === 'none' ? 'none' : (await resolveTask(actor, args.parent, deps)).id;
    let categories: CategoryT[] | undefined = list(args.category);
    if (args.status !== undefined) {
      const s = await projects.statusFilter(actor, list(args.status)!, project?.id, deps.store, 'status');
      if (s.statusIds.length && s.categories.length) throw invalid('status', 'send column names/ids or categories, not both; use category for categories');
      if (s.statusIds.length) filters.statusId = s.statusIds.join(',');
      if (s.categories.length) categories = categories ? categories.filter((c) => s.categories.includes(c)) : s.categories;
    }
    if (args.openOnly) categories = (categories ?? ['todo', 'progress']).filter((c) => c !== 'done');
    if (categories && !categories.length) throw invalid('category', 'the filters exclude every category (openOnly with done?)');
    // No filter: the user's open tasks, as two queries (progress, then todo) paged as one list, unless an order is asked.
    let runs: Array<CategoryT[] | undefined> = [categories];
    if (noFilter) {
      filters.assigneeId = actor.user.id;
      runs = args.order ? [['progress', 'todo']] : [['progress'], ['todo']];
    }
    // One read of the page and its assignees' names: a page cut to the budget needs no more of either.
    const page = await searchInOrder(actor, filters, runs, args.limit, args.cursor, deps);
    const logins = await loginsById(actor.workspace.id, page.data.flatMap((t) => t.assigneeIds), deps);
    const found = (p: SearchPage, tasks: unknown[]) => ({ format: args.format, tasks, total: p.total, nextCursor: p.nextCursor, defaultedToMyOpenTasks: noFilter });
    if (args.format === 'json') {
      // As many tasks as the JSON has room for: fitPage cuts the page (a SearchPage can), reading nothing again.
      const json = (p: SearchPage) => found(p, p.data.map((t) => taskData(t, logins)));
      const fitted = await fitPage(page, (p) => JSON.stringify(json(p)).length);
      const data = json(fitted);
      return answer('json', () => '', data, data);
    }
    if (!page.data.length) {
      const data = found(page, []);
      return answer('markdown', () => (noFilter ? 'You have no open tasks.' : 'No tasks match these filters.'), data, data);
    }
    // As many rows as the budget has room for, each rendered once; the cursor goes on after the last one shown. The
    // Markdown answer's structured content is an index (ids and keys).
    const head = noFilter ? 'Your open tasks (assigned to you, in progress first, then to do):' : 'Tasks:';
    const table = taskTableWithin(page.data, logins, LIST_BUDGET - head.length);
    const shown = page.cut(table.kept);
    const data = found(shown, shown.data.map((t) => ({ id: t.id, key: t.key })));
    const note = pageNote(shown.data.length, shown.total, 'task', shown.nextCursor);
    return answer('markdown', () => [head, table.text, '', note].join('\n'), data, data);
  },
});

export const getTask = defineTool({
  name: 'get_task',
  title: 'Get task',
  scope: 'tasks:read',
  toolset: 'tasks',
  description:
    'A task with description, checklist, subtasks, newest comments, linked pages and agreements; a cut text ends with the call that reads on.',
  input: z.strictObject({
    task: z.string().min(1).max(100).describe('Task key (e.g. WEB-12) or id'),
    sections: z.array(z.enum(context.VIEW_SECTIONS)).max(context.VIEW_SECTIONS.length).optional()
      .describe('Default all but history'),
    comments: z.number().int().min(1).max(50).default(10).describe('Newest comments to show'),
    commentsCursor: z.string().min(1).max(500).optional().describe('commentsCursor of the previous answer'),
    offset: z.number().int().min(0).max(10_000_000).default(0).describe('nextOffset of the previous answer'),
    commentId: z.string().min(1).max(100).optional().describe('Read this comment in full'),
    format,
  }),
  // What programs read: ids, and where to read on. Format json adds the parts themselves (task, description, commentList, ...).
  output: z.object({
    format: FormatOut,
    id: z.string(),
    key: z.string(),
    // Where the text read (the description, or the comment of commentId) goes on; null when it was shown to the end.
    offset: z.number().optional(),
    length: z.number().optional(),
    nextOffset: orNull(z.number()).optional(),
    commentId: z.string().optional(),
    comments: z.object({
      total: z.number(), shown: z.number(), nextCursor: orNull(z.string()), cut: z.array(z.object({ id: z.string(), nextOffset: z.number() })),
    }).optional(),
    docIds: z.array(z.string()).optional(),
  }),
  annotations: READ,
  view: TASK_VIEW_URI,
  async run(args, { actor, deps }) {
    if (args.commentId !== undefined) return readComment(actor, args.task, args.commentId, args.offset, args.format, deps);
    const sections = args.sections ?? (args.offset > 0 ? ['description' as const] : TASK_SECTIONS);
    const load = (comments: number) =>
      context.taskView(actor, args.task, { sections, comments, commentsCursor: args.commentsCursor, excerpt: 300 }, deps);
    const fit = (v: context.TaskParts) =>
      fitCuts((cuts) => (args.format === 'json' ? jsonSize({ ...indexOf(v, cuts), ...taskViewData(v, cuts, args.offset) }) : renderTaskView(v, cuts, args.offset).text.length));
    let view = await load(args.comments);
    let cuts = fit(view);
    // The budget stopped the comments early: read that many again, so the cursor starts right after the last one shown.
    const shown = pieces(view, cuts, args.offset).comments.length;
    if (view.comments && shown < view.comments.rows.length) {
      view = await load(Math.max(1, shown));
      cuts = fit(view);
    }
    const index = indexOf(view, cuts);
    function indexOf(v: context.TaskParts, c: Cuts) {
      const p = pieces(v, c, args.offset);
      return {
        format: args.format, id: v.task.id, key: v.task.key,
        ...(p.description ? { offset: args.offset, length: p.description.length, nextOffset: p.description.nextOffset } : {}),
        ...(v.comments ? {
          comments: {
            total: v.comments.total, shown: p.comments.length, nextCursor: v.comments.nextCursor,
            cut: p.comments.flatMap((x) => (x.piece.nextOffset !== null ? [{ id: x.row.id, nextOffset: x.piece.nextOffset }] : [])),
          },
        } : {}),
        ...(v.docs ? { docIds: v.docs.map((d) => d.id) } : {}),
      };
    }
    return answer(args.format, () => renderTaskView(view, cuts, args.offset).text, { ...index, ...taskViewData(view, cuts, args.offset) }, index);
  },
});

const jsonSize = (data: unknown): number => jsonText(data).length + JSON_FENCE_CHARS;

/** One comment in full, a budget's worth at a time: the cut ends with the call that reads on. */
async function readComment(actor: Actor, ref: string, commentId: string, offset: number, format: Format, deps: Deps) {
  const { task, comment, author } = await context.taskComment(actor, ref, commentId, deps);
  const by = author ? `@${author.login}` : comment.authorId;
  const build = (max: number) => {
    const p = piece(comment.text, offset, max);
    const index = { format, id: task.id, key: task.key, commentId: comment.id, offset, length: p.length, nextOffset: p.nextOffset };
    const data = { ...index, comment: { id: comment.id, author: author?.login ?? null, replyTo: comment.replyTo, createdAt: comment.createdAt, text: p.text } };
    const text = () => [
      `# ${task.key} (id ${task.id}): comment ${comment.id} by ${by} at ${when(comment.createdAt, actor.workspace.timezone)}${comment.replyTo ? `, in reply to ${comment.replyTo}` : ''}`,
      '', `## Comment (characters ${offset}-${offset + p.text.length} of ${p.length})`, '',
      p.text ? fence('comment', p.text, { id: comment.id, author: by }) : `_Nothing after character ${offset}: the comment has ${p.length}._`,
      '', p.nextOffset !== null ? cutNote(task.key, p, comment.id) : 'End of the comment.',
    ].join('\n');
    return { index, data, text, size: format === 'json' ? jsonSize(data) : text().length };
  };
  let max = 18_000;
  let r = build(max);
  for (let i = 0; i < 4 && r.size > 19_500; i++) r = build((max = Math.max(1000, max - (r.size - 19_500) - 100)));
  return answer(format, r.text, r.data, r.index);
}
