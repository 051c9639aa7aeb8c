import type { Deps } from '../shared/index.js';
import type { Actor } from '../keys/index.js';

/** Keys of the projects the key may see (any key reads projects) that start with `prefix` (any case), at most 100. */
export async function completeProjectKeys(actor: Actor, prefix: string, deps: Deps): Promise<string[]> {
  const p = prefix.trim().toUpperCase();
  // A workspace has tens of projects, not thousands: one page of them, filtered here.
  const page = await deps.store.projects.list(actor.workspace.id, actor.key.projectIds, { limit: 500 });
  return page.rows.map((r) => r.key).filter((k) => k.startsWith(p)).sort().slice(0, 100);
}
