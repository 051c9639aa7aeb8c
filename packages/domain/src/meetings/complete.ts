import type { Deps } from '../shared/index.js';
import { type Actor, hasScope } from '../keys/index.js';
import { listMeetings } from './meetings.js';

/**
 * Ids of meetings the key may see for a typed `prefix`: meetings whose id starts with it, then those whose title or
 * summary contains it; an empty prefix offers the first 100. At most 100.
 */
export async function completeMeetings(actor: Actor, prefix: string, deps: Deps): Promise<string[]> {
  if (!hasScope(actor, 'meetings:read')) return [];
  const p = prefix.trim();
  const all = await listMeetings(actor, { limit: 100 }, deps);
  const byId = all.data.filter((m) => m.id.startsWith(p)).map((m) => m.id);
  const byText = p ? (await listMeetings(actor, { q: p, limit: 100 }, deps)).data.map((m) => m.id) : [];
  return [...new Set([...byId, ...byText])].slice(0, 100);
}
