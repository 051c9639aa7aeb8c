import { z } from 'zod';
import { type Actor, CreateDocInput, type Deps, docs, DomainError, invalid, markdownToHtml, visibleTasksById } from '@tt/domain';
import { answer, cuttable, done, fitPage, orNull } from '../answer/answer.js';
import { when } from '../answer/render.js';
import { defineTool, pageNote } from '../tool.js';
import { clip, cutAt, fence, fenceInline, fenceLines } from '../answer/untrusted.js';
import { cursor, format, FormatOut, READ } from './args.js';

/** Characters of page text per get_doc answer; `offset` reads on. */
const PAGE_CHUNK = 15_000;
const taskRefs = z.array(z.string().min(1).max(100)).max(100).describe('Task keys or ids to link');

/** Task keys of a page's links; the domain has already left out tasks the key may not see. */
async function taskKeys(actor: Actor, ids: string[], deps: Deps): Promise<Map<string, string>> {
  return new Map([...(await visibleTasksById(actor, ids, deps.store)).values()].map((t) => [t.id, t.key]));
}

export const listDocs = defineTool({
  name: 'list_docs',
  title: 'List pages',
  scope: 'docs:read',
  toolset: 'docs',
  description: 'Documentation spaces and their pages in tree order, by space, parent, linked task or words.',
  input: z.strictObject({
    space: z.string().min(1).max(200).optional().describe('Space name or id'),
    query: z.string().trim().min(1).max(200).optional().describe('Words in titles and text'),
    parent: z.string().min(1).max(100).optional().describe('Parent page id; `none` = top level'),
    task: z.string().min(1).max(100).optional().describe('Linked to this task (key or id)'),
    limit: z.number().int().min(1).max(200).default(50),
    cursor: cursor(),
    format,
  }),
  output: z.object({
    format: FormatOut,
    spaces: z.array(z.object({ id: z.string() })),
    pages: z.array(z.object({ id: z.string() })),
    total: z.number(),
    nextCursor: orNull(z.string()),
  }),
  annotations: READ,
  async run(args, { actor, deps }) {
    const spaces = (await docs.listSpaces(actor, deps)).data;
    const space = args.space ? await docs.spaceByRef(actor, args.space, deps, 'space') : undefined;
    const read = await docs.listDocPage(
      actor, { spaceId: space?.id, parentId: args.parent, taskId: args.task, q: args.query, limit: args.limit, cursor: args.cursor }, deps,
    );
    const render = (page: typeof read) => {
      const depth = new Map<string, number>();
      const lines: string[] = [];
      // Space names and descriptions are person-written: one block for the list of spaces.
      if (!space && !args.cursor) lines.push('Spaces:', fenceLines('names', spaces.map((s) => `- ${s.name} (${s.id})${s.description ? `: ${cutAt(s.description, 200)}` : ''}`)), '');
      lines.push(space ? `Pages in space ${space.id}:` : 'Pages:');
      let lastSpace = '';
      for (const d of page.data) {
        const level = d.parentId !== null && depth.has(d.parentId) ? depth.get(d.parentId)! + 1 : 0;
        depth.set(d.id, level);
        if (!space && d.spaceId !== lastSpace) lines.push(`Space ${d.spaceId}:`);
        lastSpace = d.spaceId;
        const linked = d.taskIds.length ? `, linked to ${d.taskIds.length} task(s)` : '';
        lines.push(`${'  '.repeat(level)}- ${d.id}${linked}: ${fenceInline('doc-title', d.title, { id: d.id })}`);
      }
      if (!page.data.length) lines.push('No pages match.');
      lines.push('', pageNote(page.data.length, page.total, 'page', page.nextCursor));
      return lines.join('\n');
    };
    // One read: a page over the budget is cut after the last page that fits.
    const page = await fitPage(cuttable(read), (p) => (args.format === 'json' ? JSON.stringify(p).length : render(p).length));
    const data = {
      format: args.format, spaces: spaces.map((s) => ({ id: s.id, name: s.name, description: s.description })),
      pages: page.data.map((d) => ({ id: d.id, title: d.title, spaceId: d.spaceId, parentId: d.parentId, taskIds: d.taskIds, updatedAt: d.updatedAt })),
      total: page.total, nextCursor: page.nextCursor,
    };
    return answer(args.format, () => render(page), data, { ...data, spaces: data.spaces.map((s) => ({ id: s.id, name: s.name })), pages: page.data.map((d) => ({ id: d.id })) });
  },
});

export const getDoc = defineTool({
  name: 'get_doc',
  title: 'Get page',
  scope: 'docs:read',
  toolset: 'docs',
  description: `A documentation page as Markdown, ${PAGE_CHUNK} characters at a time.`,
  input: z.strictObject({
    doc: z.string().min(1).max(100).describe('Page id'),
    offset: z.number().int().min(0).default(0).describe('nextOffset of the previous answer'),
    format,
  }),
  // Format json adds the content.
  output: z.object({
    format: FormatOut, id: z.string(), spaceId: z.string(), tasks: z.array(z.object({ id: z.string(), key: z.string() })),
    length: z.number(), offset: z.number(), nextOffset: orNull(z.number()),
  }),
  annotations: READ,
  async run(args, { actor, deps }) {
    const page = await docs.getDoc(actor, args.doc, deps);
    const markdown = docs.pageMarkdown({ title: '', content: page.content }).replace(/^#\s*\n+/, '');
    const chunk = markdown.slice(args.offset, args.offset + PAGE_CHUNK);
    const nextOffset = args.offset + chunk.length < markdown.length ? args.offset + chunk.length : null;
    const keys = await taskKeys(actor, page.taskIds, deps);
    const tasks = page.taskIds.flatMap((id) => (keys.has(id) ? [{ id, key: keys.get(id)! }] : []));
    const index = {
      format: args.format, id: page.id, title: page.title, spaceId: page.spaceId, parentId: page.parentId, updatedAt: page.updatedAt, tasks,
      length: markdown.length, offset: args.offset, nextOffset,
    };
    const text = () => [
      `# Page ${page.id}`, '', `Title: ${fenceInline('doc-title', page.title, { id: page.id })}`,
      `Space ${page.spaceId}${page.parentId ? `, under ${page.parentId}` : ''}; updated ${when(page.updatedAt, actor.workspace.timezone)}; ` +
        `linked tasks: ${tasks.length ? tasks.map((t) => t.key).join(', ') : 'none'}`,
      '', `## Content (characters ${args.offset}-${args.offset + chunk.length} of ${markdown.length})`, '',
      chunk ? fence('page', chunk, { id: page.id, author: page.authorId }) : '_Empty._',
      '', nextOffset !== null ? `More: read on with get_doc {doc: "${page.id}", offset: ${nextOffset}}.` : 'End of page.',
    ].join('\n');
    return answer(args.format, text, { ...index, content: clip(chunk, 9000).text }, index);
  },
});

/** The ids a page write returns (its title too, which programs do not need). */
const DocWritten = z.object({ id: z.string(), spaceId: z.string(), taskIds: z.array(z.string()) });

export const createDoc = defineTool({
  name: 'create_doc',
  title: 'Create page',
  scope: 'docs:write',
  toolset: 'docs',
  description: 'Creates a documentation page in a space.',
  input: z.strictObject({
    space: z.string().min(1).max(200).describe('Space name or id'),
    title: CreateDocInput.shape.title.describe('One line'),
    content: z.string().max(500_000).default('').describe('Markdown'),
    parent: z.string().min(1).max(100).optional().describe('Parent page id, same space'),
    tasks: taskRefs.optional(),
  }),
  output: DocWritten,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  async run(args, { actor, deps }) {
    const space = await docs.spaceByRef(actor, args.space, deps, 'space');
    try {
      const page = await docs.createDoc(
        actor, { spaceId: space.id, title: args.title, content: markdownToHtml(args.content), parentId: args.parent ?? null, taskIds: args.tasks }, deps,
      );
      const keys = await taskKeys(actor, page.taskIds, deps);
      const linked = page.taskIds.length ? ` Linked to ${page.taskIds.map((id) => keys.get(id) ?? id).join(', ')}.` : '';
      return done(`Created page ${page.id} in space ${space.id}.${linked}`, { id: page.id, title: page.title, spaceId: page.spaceId, taskIds: page.taskIds });
    } catch (e) {
      if (e instanceof DomainError && e.message.startsWith('body.parentId')) throw invalid('parent', e.message.replace(/^body\.parentId: /, ''));
      if (e instanceof DomainError && e.message.startsWith('body.taskIds')) throw new DomainError(e.code, e.message.replace(/^body\.taskIds/, 'tasks') + '; search_tasks shows task keys');
      throw e;
    }
  },
});

export const updateDoc = defineTool({
  name: 'update_doc',
  title: 'Update page',
  scope: 'docs:write',
  toolset: 'docs',
  description: "Replaces a page's title, WHOLE content (send all of it, not a diff) or linked tasks.",
  input: z.strictObject({
    doc: z.string().min(1).max(100).describe('Page id'),
    title: CreateDocInput.shape.title.optional().describe('One line'),
    content: z.string().max(500_000).optional().describe('The complete new Markdown'),
    tasks: taskRefs.optional().describe('Task keys or ids; [] unlinks all'),
  }),
  output: DocWritten,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run(args, { actor, deps }) {
    if (args.title === undefined && args.content === undefined && args.tasks === undefined) throw invalid('title', 'send title, content and/or tasks');
    const page = await docs.updateDoc(
      actor, args.doc,
      {
        ...(args.title !== undefined ? { title: args.title } : {}),
        ...(args.content !== undefined ? { content: markdownToHtml(args.content) } : {}),
        ...(args.tasks !== undefined ? { taskIds: args.tasks } : {}),
      },
      deps,
    );
    return done(`Updated page ${page.id}.`, { id: page.id, title: page.title, spaceId: page.spaceId, taskIds: page.taskIds });
  },
});
