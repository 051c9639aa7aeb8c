import { type Deps, invalid } from '../shared/index.js';
import type { Actor } from '../keys/index.js';
import { listSpaces } from './docs.js';

/** A documentation space the user may read, by id or name (case-insensitive). */
export async function spaceByRef(actor: Actor, ref: string, deps: Deps, field: string): Promise<{ id: string; name: string }> {
  const spaces = (await listSpaces(actor, deps)).data;
  const want = ref.trim();
  const found = spaces.find((s) => s.id === want) ?? spaces.find((s) => s.name.toLowerCase() === want.toLowerCase());
  if (!found) {
    const known = spaces.map((s) => `${JSON.stringify(s.name)} (${s.id})`).join(', ') || 'none';
    throw invalid(field, `no space ${want}; spaces you can read: ${known}`);
  }
  return found;
}
