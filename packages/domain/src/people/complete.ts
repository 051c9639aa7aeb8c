import type { Deps } from '../shared/index.js';
import type { Actor } from '../keys/index.js';

/** Logins of the workspace's people that start with `prefix` (any case), at most 100. Any key sees the directory. */
export async function completeLogins(actor: Actor, prefix: string, deps: Deps): Promise<string[]> {
  const p = prefix.trim().toLowerCase();
  const page = await deps.store.users.list(actor.workspace.id, p || undefined, { limit: 500 });
  return page.rows.map((u) => u.login).filter((l) => l.toLowerCase().startsWith(p)).sort().slice(0, 100);
}
