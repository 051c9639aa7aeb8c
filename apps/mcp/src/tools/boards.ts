import { z } from 'zod';
import { context } from '@tt/domain';
import { bound, BUDGET, fitJson } from '../answer/answer.js';
import { gateValue } from '../answer/gate.js';
import { fenceLines, jsonText } from '../answer/untrusted.js';
import { defineTool, type CallToolResult } from '../tool.js';
import { BOARD_VIEW_URI } from '../views/index.js';
import { READ } from './args.js';

/** Cards per column: enough for a glance at a board in a chat, small enough for the answer budget. */
const PER_COLUMN = 20;

type Board = context.BoardView;

/** The board as the view reads it: columns with their cards, each card's key, title, assignees, due date and labels. */
function boardData(b: Board, per: number) {
  return {
    project: { id: b.project.id, key: b.project.key, name: b.project.name },
    board: { id: b.board.id, name: b.board.name },
    columns: b.columns.map((c) => ({
      id: c.id, name: c.name, category: c.category, total: c.total,
      cards: c.tasks.slice(0, per).map((t) => ({
        id: t.id, key: t.key, title: t.title, assignees: t.assigneeIds.map((id) => b.logins.get(id) ?? id), dueDate: t.dueDate, labels: t.labels,
      })),
    })),
  };
}

/** The same board as text, for a client without the views: every name and title in one block, ids and keys outside it. */
function boardText(data: ReturnType<typeof boardData>): string {
  const lines: string[] = [];
  for (const c of data.columns) {
    lines.push(`Column ${c.name} [${c.id}, ${c.category}]: ${c.total} card${c.total === 1 ? '' : 's'}${c.cards.length < c.total ? `, first ${c.cards.length} shown` : ''}`);
    for (const t of c.cards) {
      const extra = [t.assignees.length ? t.assignees.map((l) => `@${l}`).join(', ') : 'unassigned', t.dueDate && `due ${t.dueDate}`,
        t.labels.length && `labels: ${t.labels.join(', ')}`].filter(Boolean).join('; ');
      lines.push(`- ${t.key}: ${t.title} (${extra})`);
    }
  }
  return [`Board ${data.board.id} of project ${data.project.key}, columns left to right (name [id, category]), cards in column order:`,
    fenceLines('names', [`Board: ${data.board.name}`, ...lines]), '', 'move_task moves a card; get_task shows one.'].join('\n');
}

export const showBoard = defineTool({
  name: 'show_board',
  title: 'Show board',
  scope: 'tasks:read',
  toolset: 'tasks',
  description: 'A board\'s columns and cards; send board or project.',
  input: z.strictObject({
    board: z.string().min(1).max(100).optional().describe('Board id'),
    project: z.string().min(1).max(100).optional().describe('Project key or id (its first board)'),
  }),
  annotations: READ,
  view: BOARD_VIEW_URI,
  async run(args, { actor, deps }): Promise<CallToolResult> {
    const view = await context.boardView(actor, args, PER_COLUMN, deps, 'list_projects shows projects and board ids');
    // Fewer cards per column until both forms fit the answer budget (the column totals still say how many there are).
    let per = PER_COLUMN;
    let data = gateValue(boardData(view, per));
    while (per > 1 && Math.max(jsonText(data).length, boardText(data).length) > BUDGET - 500) {
      per = Math.max(1, Math.floor(per * 0.7));
      data = gateValue(boardData(view, per));
    }
    return { content: [{ type: 'text', text: bound(boardText(data)) }], structuredContent: fitJson(data) };
  },
});
