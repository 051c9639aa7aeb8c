import { DomainError, type Via } from '../shared/index.js';
import type { KeyRecord, UserRecord, WorkspaceRecord } from './ports.js';
import type { Scope } from './schema.js';

/** Who acts: a key's user in a workspace, limited by the key's rights and projects. */
export interface Actor {
  workspace: WorkspaceRecord;
  user: UserRecord;
  key: Pick<KeyRecord, 'id' | 'scopes' | 'projectIds'>;
  /**
   * False when the workspace had no active webhook subscription as the request was authenticated (read with the
   * key): its writes then skip the lookup. Undefined when not known (look them up).
   */
  webhooks?: boolean;
  /**
   * Through what the request came (REST, MCP, the worker, with the key and the OAuth client's name), set where the
   * actor is made (key and token authentication, automations); the activity log records it with every change.
   */
  via?: Via;
}

export function hasScope(actor: Actor, scope: Scope): boolean {
  return actor.key.scopes.includes(scope);
}

/** Throws 403 insufficient_scope naming the missing right. */
export function requireScope(actor: Actor, scope: Scope): void {
  if (!hasScope(actor, scope)) {
    throw new DomainError('insufficient_scope', `This key lacks the right ${scope}`);
  }
}

export function canSeeProject(actor: Actor, projectId: string): boolean {
  return actor.key.projectIds === null || actor.key.projectIds.includes(projectId);
}

/** A closed board is visible only to its members; the board's project must be visible to the key. */
export function canSeeBoard(actor: Actor, board: { projectId: string; memberIds: string[] | null }): boolean {
  return canSeeProject(actor, board.projectId) && (board.memberIds === null || board.memberIds.includes(actor.user.id));
}
