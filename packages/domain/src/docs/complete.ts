import type { Deps } from '../shared/index.js';
import { type Actor, hasScope } from '../keys/index.js';
import { listDocs } from './docs.js';

/** Ids of pages the key may see for a typed `prefix`: ids starting with it, then pages whose title or text contains it. At most 100. */
export async function completeDocIds(actor: Actor, prefix: string, deps: Deps): Promise<string[]> {
  if (!hasScope(actor, 'docs:read')) return [];
  const p = prefix.trim();
  const all = await listDocs(actor, { limit: 100 }, deps);
  const byId = all.data.filter((d) => d.id.startsWith(p)).map((d) => d.id);
  const byText = p ? (await listDocs(actor, { q: p, limit: 100 }, deps)).data.map((d) => d.id) : [];
  return [...new Set([...byId, ...byText])].slice(0, 100);
}
