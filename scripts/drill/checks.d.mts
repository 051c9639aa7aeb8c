/** A create acknowledged 201: the task's id and key, and whether it was before or after the moment. */
export interface Acked {
  id: string;
  key: string;
  phase?: string;
}
/** What the creates wrote, read by SQL. */
export interface CreateWrites {
  tasks: { id: string; key: string }[];
  /** The task.created entries. */
  activity: { id: string; task_id: string; task_key: string }[];
  /** The create's outbox jobs (notify.assigned, automations.task_created). */
  outbox: { id: string; name: string; taskId: string; payload: string }[];
}
/** The writes agree with each other (one task.created entry and one notify.assigned job per task, nothing dangling). */
export function agreement(writes: CreateWrites, label: string): string[];
/** The source at the moment holds exactly the creates acknowledged before it, and its writes agree. */
export function compareMoment(before: Acked[], atMoment: CreateWrites): string[];
/** The restored service against the moment. */
export function restoreFailures(o: {
  before: Acked[];
  after: Acked[];
  atMoment: CreateWrites;
  restored: CreateWrites;
  listed: Acked[];
  gets: Record<string, number>;
  activityOf: Record<string, string[]>;
}): string[];
