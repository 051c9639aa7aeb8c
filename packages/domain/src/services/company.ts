import type { Actor } from '../access.js';
import { encodeCursor, decodeCursor } from '../cursor.js';
import type { Deps } from '../deps.js';
import { presentTeam, presentUser } from '../presenters.js';
import type { KeyInfo, Team, User } from '../schemas/company.js';
import type { Page } from '../schemas/common.js';

export function me(actor: Actor, deps: Deps): KeyInfo {
  return {
    user: presentUser(actor.user),
    workspace: { id: actor.workspace.id, name: actor.workspace.name },
    key: { id: actor.key.id, scopes: actor.key.scopes, projectIds: actor.key.projectIds },
    rateLimitPerMinute: deps.rateLimitPerMinute,
  };
}

export async function listUsers(
  actor: Actor,
  input: { q?: string | undefined; limit: number; cursor?: string | undefined },
  deps: Deps,
): Promise<Page<User>> {
  const page = await deps.store.users.list(actor.workspace.id, input.q, { limit: input.limit, after: decodeCursor(input.cursor) });
  return { data: page.rows.map(presentUser), nextCursor: encodeCursor(page.next), total: page.total };
}

export async function listTeams(actor: Actor, input: { limit: number; cursor?: string | undefined }, deps: Deps): Promise<Page<Team>> {
  const page = await deps.store.teams.list(actor.workspace.id, { limit: input.limit, after: decodeCursor(input.cursor) });
  return { data: page.rows.map(presentTeam), nextCursor: encodeCursor(page.next), total: page.total };
}

export function listLabels(actor: Actor, deps: Deps): Promise<string[]> {
  return deps.store.labels.list(actor.workspace.id);
}
