import { DomainError, notFound, type Repos } from '../shared/index.js';

/**
 * Versions of tasks, pages and projects: a counter raised by every write that changes what GET shows of the object.
 * REST sends it as the strong ETag, and a write carrying the versions the client last saw (If-Match) goes ahead only
 * while the object is still at one of them, so two editors cannot overwrite each other unnoticed.
 */
export type VersionedKind = 'task' | 'doc' | 'project';

/** The store's side of versions; every repository `update` of these objects raises the version itself. */
export interface VersionsRepo {
  /**
   * The current version of an object, its row locked until the transaction ends so that no other write can come
   * between a precondition check and the write it guards; undefined when there is no such object.
   */
  lock(kind: VersionedKind, id: string): Promise<number | undefined>;
  /** Raises the version of objects whose representation changed through another object (a subtask, a page link, a board). */
  bump(kind: VersionedKind, ids: string[]): Promise<void>;
}

/** An object as GET shows it, with its version. */
export interface Versioned<T> {
  data: T;
  version: number;
}

/** Preconditions of a write on a versioned object. */
export interface WriteOptions {
  /**
   * The versions the caller last saw: the write happens only if the object is still at one of them, else it fails
   * with `precondition_failed` and changes nothing. Undefined = no precondition; an empty list never matches.
   */
  ifMatch?: readonly number[] | undefined;
}

/** A write refused because the object changed since the caller read it; carries the current version. */
export class PreconditionFailed extends DomainError {
  constructor(
    what: string,
    readonly currentVersion: number,
  ) {
    super(
      'precondition_failed',
      `${what} was changed since you read it: it is now at version ${currentVersion} (ETag "${currentVersion}"); ` +
        'read it again and reapply your change',
    );
  }
}

/**
 * Checks a write's precondition inside its transaction. `seen` is the version the use case read; the locked version
 * must match too, else the use case would be working from a copy older than the one it is about to overwrite.
 */
export async function checkVersion(
  repos: Repos,
  kind: VersionedKind,
  object: { id: string; version: number },
  what: string,
  opts: WriteOptions | undefined,
): Promise<void> {
  if (opts?.ifMatch === undefined) return;
  checkSeenVersion(object, what, opts);
  const current = await repos.versions.lock(kind, object.id);
  if (current === undefined) throw notFound(what);
  if (current !== object.version) throw new PreconditionFailed(what, current);
}

/**
 * A write's precondition against the version it was planned on, with no lock: a write that is one statement guarded by
 * that version checks the rest itself (it writes nothing if the object moved on meanwhile).
 */
export function checkSeenVersion(object: { version: number }, what: string, opts: WriteOptions | undefined): void {
  const expected = opts?.ifMatch;
  if (expected !== undefined && !expected.includes(object.version)) throw new PreconditionFailed(what, object.version);
}

/** Turns a use case that returns a versioned object into one that returns only the object. */
export const withoutVersion =
  <A extends unknown[], T>(f: (...args: A) => Promise<Versioned<T>>) =>
  async (...args: A): Promise<T> =>
    (await f(...args)).data;

declare module '../shared/store.js' {
  interface Repos {
  /** Versions of tasks, pages and projects (ETag / If-Match). */
    versions: VersionsRepo;
  }
}
