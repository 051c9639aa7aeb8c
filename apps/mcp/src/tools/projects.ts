import { z } from 'zod';
import { canSeeBoard, presentBoard, projects } from '@tt/domain';
import { answer, orNull } from '../answer/answer.js';
import { defineTool, pageNote } from '../tool.js';
import { cutAt, fenceLines, plain } from '../answer/untrusted.js';

import { cursor, format, FormatOut, READ } from './args.js';

export const listProjects = defineTool({
  name: 'list_projects',
  title: 'List projects',
  toolset: 'tasks',
  description: 'Projects with their boards and columns (id, name, category).',
  input: z.strictObject({
    limit: z.number().int().min(1).max(100).default(50),
    cursor: cursor(1000),
    format,
  }),
  output: z.object({
    format: FormatOut,
    projects: z.array(z.object({
      id: z.string(), key: z.string(),
      boards: z.array(z.object({ id: z.string(), columns: z.array(z.object({ id: z.string(), category: z.string() })) })),
    })),
    total: z.number(),
    nextCursor: orNull(z.string()),
  }),
  annotations: READ,
  async run(args, { actor, deps }) {
    const page = await projects.listProjects(actor, { limit: args.limit, cursor: args.cursor }, deps);
    // One query for the boards of the whole page; the store keeps only boards open to the user.
    const boards = (await deps.store.boards.byProjects(actor.workspace.id, page.data.map((p) => p.id), actor.user.id))
      .filter((b) => canSeeBoard(actor, b))
      .map(presentBoard);
    const list = page.data.map((p) => ({
      id: p.id, key: p.key, name: p.name, description: p.description,
      boards: boards.filter((b) => b.projectId === p.id).map((b) => ({ id: b.id, name: b.name, columns: b.statuses })),
    }));
    // The whole page in one block: project, board and column names and descriptions are person-written.
    const rows: string[] = [];
    for (const p of list) {
      rows.push(`- Project ${p.key} (id ${p.id}): ${p.name}${p.description ? ` — ${cutAt(p.description, 300)}` : ''}`);
      if (!p.boards.length) rows.push('  - no boards you can see');
      for (const b of p.boards) {
        const cols = b.columns.map((c) => `${plain(c.name)} [${c.id}, ${c.category}]`).join(' → ');
        rows.push(`  - Board ${plain(b.name)} (id ${b.id}): ${cols}`);
      }
    }
    const lines = ['Projects, their boards and columns (column [id, category]) in order:', fenceLines('names', rows), '', pageNote(list.length, page.total, 'project', page.nextCursor)];
    const data = { format: args.format, projects: list, total: page.total, nextCursor: page.nextCursor };
    return answer(args.format, () => (list.length ? lines.join('\n') : 'No projects visible to this key.'), data, data);
  },
});
