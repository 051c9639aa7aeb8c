import { type Deps, invalid } from '../shared/index.js';
import { type Actor, requireScope } from '../keys/index.js';
import { type Category, boardByRef, firstBoard, projectByRef } from '../projects/index.js';
import { listTaskPage, ListTasksQuery, type TaskSummary } from '../tasks/index.js';

/**
 * A board as people see it: its columns left to right, each with its top cards in column order and how many it holds.
 * For the board view of agent clients (show_board) and its text form. Each column is one index-backed read of its
 * top cards (the same list REST's `GET /tasks?statusId=...&orderBy=position` gives), so the reads grow with the
 * columns, never with the cards; the cards' assignees are looked up in one read.
 */

export interface BoardViewColumn {
  id: string;
  name: string;
  category: Category;
  /** Cards in the column (those shown are its first `perColumn`). */
  total: number;
  tasks: TaskSummary[];
}

export interface BoardView {
  project: { id: string; key: string; name: string };
  board: { id: string; name: string };
  columns: BoardViewColumn[];
  /** Logins of the cards' assignees, by user id. */
  logins: Map<string, string>;
}

/** Cards shown per column at most: a board in a chat answer is a glance, not the whole backlog. */
export const BOARD_VIEW_MAX_PER_COLUMN = 50;

/**
 * The board named by id, or the first board the user may see of the project named by key or id; `hint` ends a
 * not-found message (where the caller finds valid values).
 */
export async function boardView(
  actor: Actor, ref: { board?: string | undefined; project?: string | undefined }, perColumn: number, deps: Deps, hint?: string,
): Promise<BoardView> {
  requireScope(actor, 'tasks:read');
  if (perColumn < 1 || perColumn > BOARD_VIEW_MAX_PER_COLUMN) throw invalid('perColumn', `must be 1 to ${BOARD_VIEW_MAX_PER_COLUMN}`);
  const repos = deps.store;
  let board;
  if (ref.board !== undefined) board = await boardByRef(actor, ref.board, repos, hint);
  else if (ref.project !== undefined) board = await firstBoard(actor, await projectByRef(actor, ref.project, repos, hint), repos);
  else throw invalid('board', 'required: send board (id) or project (key or id)');
  const project = await repos.projects.get(actor.workspace.id, board.projectId);
  const statuses = [...board.statuses].sort((a, b) => a.position - b.position);
  const pages = await Promise.all(statuses.map((s) =>
    listTaskPage(actor, ListTasksQuery.parse({ boardId: board.id, statusId: s.id, orderBy: 'position', limit: perColumn }), deps)));
  const assignees = new Set(pages.flatMap((p) => p.data.flatMap((t) => t.assigneeIds)));
  const logins = assignees.size ? await repos.users.logins(actor.workspace.id, assignees) : new Map<string, string>();
  return {
    project: { id: board.projectId, key: project?.key ?? '', name: project?.name ?? '' },
    board: { id: board.id, name: board.name },
    columns: statuses.map((s, i) => ({ id: s.id, name: s.name, category: s.category, total: pages[i]!.total, tasks: pages[i]!.data })),
    logins,
  };
}
