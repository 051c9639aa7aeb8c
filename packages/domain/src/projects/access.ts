import { type Deps, invalid, notFound } from '../shared/index.js';
import { presentBoard } from './present.js';
import type { Board, BoardAccessInput } from './schema.js';

/** The operator sets who may see a board. */

export async function setBoardAccess(boardId: string, input: BoardAccessInput, deps: Deps): Promise<Board & { memberIds: string[] | null }> {
  const board = await deps.store.boards.get(null, boardId);
  if (!board) throw notFound('Board');
  if (input.memberIds) {
    const ids = [...new Set(input.memberIds)];
    const found = await deps.store.users.byIds(board.workspaceId, ids);
    const missing = ids.filter((id) => !found.some((u) => u.id === id));
    if (missing.length) throw invalid('memberIds', `unknown user ${missing.join(', ')}`);
  }
  await deps.store.transaction(async (repos) => {
    await repos.boards.setMembers(board.id, input.memberIds ? [...new Set(input.memberIds)] : null);
    await repos.versions.bump('project', [board.projectId]); // which boards GET /projects/{id} shows may change
  });
  return { ...presentBoard(board), memberIds: input.memberIds };
}
