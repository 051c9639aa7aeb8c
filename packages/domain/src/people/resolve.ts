import { invalid, type Repos } from '../shared/index.js';
import type { Actor } from '../keys/index.js';
import type { UserRecord } from '../keys/index.js';

/**
 * People named the way people name them: `me`, an id, a login (with or without @) or a display name. One resolver
 * for REST and MCP, so a name means the same person everywhere. A name is matched whole (case-insensitive), then as
 * a first name; a name that fits two people is refused with the candidates, never guessed.
 */

export interface PeopleOptions {
  /** Field named in errors. */
  field: string;
  /** Where the caller finds valid values, appended to "unknown user" errors. */
  hint?: string | undefined;
}

export type NameMatch = { user: UserRecord } | { candidates: UserRecord[] } | { none: true };

const live = (u: UserRecord) => u.deletedAt === null;
const label = (u: UserRecord) => `${u.name} (@${u.login}, ${u.id})`;

/** Live users whose display name is `name`, or failing that whose first name is. */
export async function usersByName(actor: Actor, name: string, repos: Repos): Promise<NameMatch> {
  const want = name.trim().toLowerCase().replace(/\s+/g, ' ');
  if (!want) return { none: true };
  // The store's user search matches name, login and job title; exact matching happens here.
  const found = (await repos.users.list(actor.workspace.id, want, { limit: 100 })).rows.filter(live);
  const whole = found.filter((u) => u.name.trim().toLowerCase().replace(/\s+/g, ' ') === want);
  const first = whole.length ? whole : found.filter((u) => u.name.trim().toLowerCase().split(/\s+/)[0] === want);
  if (first.length === 1) return { user: first[0]! };
  if (first.length > 1) return { candidates: first };
  return { none: true };
}

/** Resolves each reference to a user id, in order, without duplicates; unknown and ambiguous ones fail together. */
export async function resolveUsers(actor: Actor, refs: readonly string[], repos: Repos, o: PeopleOptions): Promise<string[]> {
  const wanted = refs.map((r) => r.trim()).filter(Boolean);
  const plain = wanted.filter((r) => r.toLowerCase() !== 'me').map((r) => r.replace(/^@/, ''));
  const [byId, byLogin] = plain.length
    ? await Promise.all([repos.users.byIds(actor.workspace.id, plain), repos.users.byLogins(actor.workspace.id, plain.map((n) => n.toLowerCase()))])
    : [[], []];
  const known = new Map<string, string>();
  for (const u of byId.filter(live)) known.set(u.id, u.id);
  for (const u of byLogin.filter(live)) known.set(u.login.toLowerCase(), u.id);
  const out: string[] = [];
  const unknown: string[] = [];
  const ambiguous: string[] = [];
  for (const ref of wanted) {
    if (ref.toLowerCase() === 'me') {
      out.push(actor.user.id);
      continue;
    }
    const bare = ref.replace(/^@/, '');
    const id = known.get(bare) ?? known.get(bare.toLowerCase());
    if (id) {
      out.push(id);
      continue;
    }
    const byName = await usersByName(actor, bare, repos);
    if ('user' in byName) out.push(byName.user.id);
    else if ('candidates' in byName) ambiguous.push(`"${ref}" matches ${byName.candidates.map(label).join(' and ')}`);
    else unknown.push(ref);
  }
  const faults: string[] = [];
  if (unknown.length) faults.push(`unknown user ${unknown.join(', ')} (send an id, a login, a full name or \`me\`)${o.hint ? `; ${o.hint}` : ''}`);
  if (ambiguous.length) faults.push(`${ambiguous.join('; ')}: send the login of the one you mean`);
  if (faults.length) throw invalid(o.field, faults.join('; '));
  return [...new Set(out)];
}

export async function resolveUser(actor: Actor, ref: string, repos: Repos, o: PeopleOptions): Promise<string> {
  const [id] = await resolveUsers(actor, [ref], repos, o);
  if (!id) throw invalid(o.field, 'must name a user');
  return id;
}

/** A user named in a list filter: their id when the reference names one person, else a value that matches nothing. */
export async function filterUserId(actor: Actor, ref: string, repos: Repos): Promise<string> {
  const want = ref.trim();
  if (want.toLowerCase() === 'me') return actor.user.id;
  const [byId] = await repos.users.byIds(actor.workspace.id, [want]);
  if (byId) return byId.id;
  const [byLogin] = await repos.users.byLogins(actor.workspace.id, [want.replace(/^@/, '').toLowerCase()]);
  if (byLogin) return byLogin.id;
  const byName = await usersByName(actor, want, repos);
  return 'user' in byName ? byName.user.id : `missing:${want}`;
}

/** A user id (`usr_` and 26 base-32 characters of a ULID). */
const USER_ID = /^usr_[0-9a-z]{26}$/;

/**
 * The assignee filter of a task list. A reference shaped like a user id goes to the list query as it is: the tasks of
 * a workspace name only its own users, so an id of no user here matches nothing, as a failed lookup would, and the
 * common case costs no lookup of its own (and the index sees a constant). Such a reference is therefore never read as
 * a login or a display name. Other references (`me`, logins, names) resolve as filterUserId does.
 */
export async function assigneeFilter(actor: Actor, ref: string | undefined, repos: Repos): Promise<string | undefined> {
  if (ref === undefined || ref === 'none') return ref;
  const want = ref.trim();
  return USER_ID.test(want) ? want : filterUserId(actor, want, repos);
}
