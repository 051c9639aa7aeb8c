import type { App } from '@modelcontextprotocol/ext-apps';
import { call, h, markRendered, setStatus, startView } from '../ui.js';

/*
 * The board view (ui://tracker/board): show_board's structured content as columns of cards. Moving a card calls
 * move_task through the host, under the same key as the agent's calls, then show_board again to show the new state.
 */

interface Card { id: string; key: string; title: string; assignees: string[]; dueDate: string | null; labels: string[] }
interface Column { id: string; name: string; category: string; total: number; cards: Card[] }
interface Board { board: { id: string; name: string }; project: { key: string; name: string }; columns: Column[] }

const root = document.getElementById('root')!;
const status = h('p', 'status');
let busy = false;

function cardEl(app: App, board: Board, column: Column, card: Card): HTMLElement {
  const move = h('select', undefined, h('option', undefined, 'Move to…'));
  move.setAttribute('aria-label', `Move ${card.key} to another column`);
  for (const c of board.columns) {
    if (c.id === column.id) continue;
    const option = h('option', undefined, c.name);
    option.value = c.id;
    move.append(option);
  }
  move.addEventListener('change', () => {
    if (move.value && move.selectedIndex > 0) void moveCard(app, board, card, move.value);
  });
  const meta = h('div', 'row muted',
    card.assignees.length ? card.assignees.map((l) => `@${l}`).join(', ') : 'unassigned',
    card.dueDate && h('span', undefined, `due ${card.dueDate}`),
  );
  const labels = card.labels.length ? h('div', 'row', ...card.labels.map((l) => h('span', 'chip', l))) : null;
  const el = h('article', 'card', h('span', 'key', card.key), h('span', 'title', card.title), meta, labels, move);
  el.dataset.key = card.key;
  return el;
}

function render(app: App, board: Board): void {
  const columns = h('div', 'columns');
  for (const column of board.columns) {
    const el = h('section', 'column', h('h2', undefined, `${column.name} · ${column.total}`));
    el.dataset.column = column.id;
    for (const card of column.cards) el.append(cardEl(app, board, column, card));
    if (column.total > column.cards.length) el.append(h('p', 'more', `${column.total - column.cards.length} more not shown`));
    columns.append(el);
  }
  root.replaceChildren(h('h1', undefined, `${board.project.key} · ${board.board.name}`), columns, status);
  markRendered();
}

async function moveCard(app: App, board: Board, card: Card, columnId: string): Promise<void> {
  if (busy) return;
  busy = true;
  root.querySelectorAll('select').forEach((s) => (s.disabled = true));
  setStatus(status, `Moving ${card.key}…`);
  try {
    await call(app, 'move_task', { task: card.key, column: columnId });
    render(app, (await call(app, 'show_board', { board: board.board.id })) as unknown as Board);
    setStatus(status, `Moved ${card.key}.`);
  } catch (e) {
    // The tool's own message says what went wrong (a right missing, a column gone); the board stays as it was.
    setStatus(status, (e as Error).message, true);
    root.querySelectorAll('select').forEach((s) => {
      s.disabled = false;
      s.selectedIndex = 0;
    });
  } finally {
    busy = false;
  }
}

root.append(h('p', 'muted', 'Loading the board…'));
void startView('tracker-board', (structured, app) => {
  if (Array.isArray(structured.columns)) render(app, structured as unknown as Board);
});
