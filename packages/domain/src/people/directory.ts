import { decodeCursor, type Deps, encodeCursor, type Page } from '../shared/index.js';
import type { Actor } from '../keys/index.js';
import { presentTeam, presentUser } from './present.js';
import type { KeyInfo, Team, User } from './schema.js';

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
