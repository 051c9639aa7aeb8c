import type { CutPageResult, PageRequest, PageResult } from './paging.js';
import type { Deps } from './store.js';

/*
 * The activity log and the operator's audit log: what changed, who changed it and through what. The writing side
 * lives in the kernel (like the change feed) because changes are made in every layer: keys and webhooks (layer 1),
 * people and OAuth (2), tasks (3), comments, time, docs and meetings (4), automations (5). Entries are written in the
 * transaction of the change, so a rollback leaves none. Reading, presenting and filtering live in `activity/`.
 */

export const CHANNELS = ['rest', 'mcp', 'worker', 'operator'] as const;
export type Channel = (typeof CHANNELS)[number];

/** Through what a change came: the channel, the key (none for the operator), the OAuth client's registered name. */
export interface Via {
  channel: Channel;
  keyId: string | null;
  clientName: string | null;
  /** An automation's change: the rule that made it. */
  automationId?: string | null;
}

/** One field's change. Long texts are recorded as a marker (their length), never in full. */
export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

/** Who acted, as the recorders need it (an `Actor` fits; the kernel names no feature). */
export interface ActingAs {
  workspace: { id: string };
  user: { id: string };
  key: { id: string };
  via?: Via | undefined;
  /** False when the key's read found no active webhook subscription in the workspace (see Actor). */
  webhooks?: boolean | undefined;
}

export interface ActivityRecord {
  id: string;
  workspaceId: string;
  at: number;
  /** Null for the operator, who is no user. */
  actorId: string | null;
  channel: Channel;
  keyId: string | null;
  clientName: string | null;
  automationId: string | null;
  /** Visibility: a task's project and board, a page's space. */
  projectId: string | null;
  boardId: string | null;
  spaceId: string | null;
  taskId: string | null;
  taskKey: string | null;
  docId: string | null;
  /** The meeting an entry is also about (task.created_from_agreement: the meeting whose agreement made the task). */
  meetingId: string | null;
  action: string;
  changes: FieldChange[];
}

/** An entry as read: the actor's name and login joined. */
export interface ActivityRow extends ActivityRecord {
  actorName: string | null;
  actorLogin: string | null;
}

/**
 * What a reader may see and what it asked for. An entry is listed only when the reader may read what it is about:
 * its task (the key's projects; boards closed to `userId` are left out), its page (`pages`: the key reads pages;
 * spaces closed to `userId` are left out) and its meeting (`meetings`: the key reads meetings; folders of no team of
 * `teamIds` and other people's personal meetings are left out, as the meeting lists leave them). Built by the
 * activity feature (`activityReader`), never by hand.
 */
export interface ActivityFilter {
  workspaceId: string;
  userId: string;
  visibleProjectIds: string[] | null;
  teamIds: string[];
  pages: boolean;
  meetings: boolean;
  since?: number | undefined;
  until?: number | undefined;
  projectId?: string | undefined;
  actorId?: string | undefined;
  taskId?: string | undefined;
}

export interface AuditRecord {
  id: string;
  workspaceId: string | null;
  at: number;
  /** `operator` (the operator token), `user`, or `anonymous` (an OAuth client registering itself). */
  actorKind: 'operator' | 'user' | 'anonymous';
  actorId: string | null;
  channel: Channel;
  keyId: string | null;
  clientName: string | null;
  action: string;
  targetType: string;
  targetId: string;
  /** Names, scopes, settings: never a secret. */
  details: Record<string, unknown>;
}

export interface AuditFilter {
  workspaceId?: string | undefined;
  since?: number | undefined;
  until?: number | undefined;
  action?: string | undefined;
}

export interface ActivityRepo {
  add(entries: ActivityRecord[]): Promise<void>;
  list(filter: ActivityFilter, page: PageRequest): Promise<CutPageResult<ActivityRow>>;
  /** A moved task's entries follow it to its new board (their visibility is the task's). */
  moveTask(taskId: string, boardId: string): Promise<void>;
  /** Retention: deletes entries older than `before`, at most `batch` at a time; returns how many. */
  prune(before: number, batch: number): Promise<number>;
}

export interface AuditRepo {
  add(entry: AuditRecord): Promise<void>;
  list(filter: AuditFilter, page: PageRequest): Promise<PageResult<AuditRecord>>;
  prune(before: number, batch: number): Promise<number>;
}

declare module './store.js' {
  interface Repos {
    activity: ActivityRepo;
    audit: AuditRepo;
  }
}

/** The channel of an actor built before `via` existed (tests, tools) is REST with its key. */
export function viaOf(actor: ActingAs): Via {
  return actor.via ?? { channel: 'rest', keyId: actor.key.id, clientName: null };
}

/** What an entry is about. */
export type ActivitySubject =
  | { task: { id: string; key: string; projectId: string; boardId: string }; meeting?: { id: string } }
  | { doc: { id: string; spaceId: string } };

/** Records one activity entry for `actor` (null: the operator) in the current transaction. */
export async function recordActivity(
  repos: { activity: ActivityRepo },
  deps: Pick<Deps, 'newId' | 'now'>,
  actor: ActingAs | null,
  workspaceId: string,
  subject: ActivitySubject,
  action: string,
  changes: FieldChange[] = [],
): Promise<ActivityRecord> {
  const entry = activityEntry(deps, actor, workspaceId, subject, action, changes);
  await repos.activity.add([entry]);
  return entry;
}

/** An activity entry, not yet written: for a repository that writes it in the statement of the change itself. */
export function activityEntry(
  deps: Pick<Deps, 'newId' | 'now'>,
  actor: ActingAs | null,
  workspaceId: string,
  subject: ActivitySubject,
  action: string,
  changes: FieldChange[] = [],
): ActivityRecord {
  const via = actor ? viaOf(actor) : { channel: 'operator' as const, keyId: null, clientName: null };
  return {
    id: deps.newId('act'), workspaceId, at: deps.now(), actorId: actor?.user.id ?? null,
    channel: via.channel, keyId: via.keyId, clientName: via.clientName, automationId: via.automationId ?? null,
    projectId: 'task' in subject ? subject.task.projectId : null,
    boardId: 'task' in subject ? subject.task.boardId : null,
    spaceId: 'doc' in subject ? subject.doc.spaceId : null,
    taskId: 'task' in subject ? subject.task.id : null,
    taskKey: 'task' in subject ? subject.task.key : null,
    docId: 'doc' in subject ? subject.doc.id : null,
    meetingId: 'task' in subject ? subject.meeting?.id ?? null : null,
    action, changes,
  };
}

/**
 * Records one audit entry in the current transaction; `actor` null is the operator token, `anonymous` someone
 * unauthenticated (an OAuth client registering itself through MCP).
 */
export async function recordAudit(
  repos: { audit: AuditRepo },
  deps: Pick<Deps, 'newId' | 'now'>,
  actor: ActingAs | null | 'anonymous',
  e: { workspaceId: string | null; action: string; targetType: string; targetId: string; details?: Record<string, unknown> },
): Promise<void> {
  const user = actor === 'anonymous' ? null : actor;
  const via = user ? viaOf(user) : { channel: actor === 'anonymous' ? ('mcp' as const) : ('operator' as const), keyId: null, clientName: null };
  await repos.audit.add({
    id: deps.newId('aud'), workspaceId: e.workspaceId, at: deps.now(), actorKind: actor === 'anonymous' ? 'anonymous' : actor ? 'user' : 'operator', actorId: user?.user.id ?? null,
    channel: via.channel, keyId: via.keyId, clientName: via.clientName, action: e.action, targetType: e.targetType, targetId: e.targetId,
    details: e.details ?? {},
  });
}

/** A long text in a change: its length, never its words. */
export const textMarker = (text: string): { characters: number } => ({ characters: text.length });
