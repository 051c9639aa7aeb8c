import { type Deps, invalid } from '../shared/index.js';
import type { Actor } from '../keys/index.js';
import { listFolders } from './meetings.js';

/** A meeting folder the user may see, by id or name; `personal` stands for the user's personal meetings. */
export async function folderByRef(actor: Actor, ref: string, deps: Deps, field: string): Promise<string> {
  const want = ref.trim();
  if (want.toLowerCase() === 'personal') return 'personal';
  const folders = (await listFolders(actor, deps)).data;
  const found = folders.find((f) => f.id === want) ?? folders.find((f) => f.name.toLowerCase() === want.toLowerCase());
  if (!found) {
    const known = folders.map((f) => `${JSON.stringify(f.name)} (${f.id})`).join(', ') || 'none';
    throw invalid(field, `no folder ${want}; folders you can see: ${known}, or \`personal\``);
  }
  return found.id;
}
