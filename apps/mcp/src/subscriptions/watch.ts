import { type Actor, type Deps, docs, DomainError, hasScope, tasks } from '@tt/domain';
import type { Session } from '../edge/session.js';

/** A resource a stream may watch: its canonical URI (what the change feed names) for the one the client sent. */
export interface Watched {
  /** `task://KEY` (upper-case key) or `doc://ID`: what changes are matched on. */
  canonical: string;
  /** The URI as the client wrote it: what its notifications carry, so the client's filter matches. */
  sent: string;
}

const TASK = /^task:\/\/(.+)$/;
const DOC = /^doc:\/\/(.+)$/;

const decode = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/**
 * The canonical URI of a resource the key can see now, or undefined: missing, invisible (a closed board, another
 * project, another workspace), not one of ours, or outside the key's rights or the session's toolsets all look the
 * same, so the answer leaks nothing about what exists. Read through the same use cases as get_task and get_doc.
 */
export async function visibleUri(actor: Actor, session: Session | undefined, uri: string, deps: Deps): Promise<string | undefined> {
  const toolsets = session?.toolsets ?? null;
  const task = TASK.exec(uri);
  if (task) {
    if (!hasScope(actor, 'tasks:read') || (toolsets && !toolsets.includes('tasks'))) return undefined;
    const found = await tasks.findVisibleTask(actor, decode(task[1]!), deps.store);
    return found && `task://${found.key}`;
  }
  const doc = DOC.exec(uri);
  if (doc) {
    if (!hasScope(actor, 'docs:read') || (toolsets && !toolsets.includes('docs'))) return undefined;
    try {
      return `doc://${(await docs.getDoc(actor, decode(doc[1]!), deps)).id}`;
    } catch (e) {
      if (e instanceof DomainError && e.code === 'not_found') return undefined;
      throw e;
    }
  }
  return undefined;
}
