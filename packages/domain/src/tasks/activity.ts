import { type FieldChange, textMarker } from '../shared/index.js';
import type { TaskRecord } from './ports.js';

/*
 * What the activity log says changed on a task. The field names are the Task object's (REST and MCP show the same
 * names); a description is a marker (its length), never the text; a checklist is its items' text and state.
 */

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const checklistOf = (t: Pick<TaskRecord, 'checklist'>) => t.checklist.map((c) => ({ text: c.text, done: c.done }));

type Fields = Omit<TaskRecord, 'key' | 'number' | 'rank' | 'version' | 'statusCategory' | 'timeSpentSeconds'>;
const FIELDS: Array<[string, (t: Fields) => unknown]> = [
  ['title', (t) => t.title],
  ['type', (t) => t.type],
  ['priority', (t) => t.priority],
  ['assigneeIds', (t) => t.assigneeIds],
  ['labels', (t) => t.labels],
  ['dueDate', (t) => t.dueDate],
  ['parentId', (t) => t.parentId],
  ['timeEstimateSeconds', (t) => t.timeEstimateSeconds],
  ['checklist', checklistOf],
];

/** The fields that differ between two states of a task, with from and to. */
export function taskFieldChanges(before: TaskRecord, after: TaskRecord): FieldChange[] {
  const out: FieldChange[] = [];
  for (const [field, get] of FIELDS) {
    const from = get(before);
    const to = get(after);
    if (!same(from, to)) out.push({ field, from, to });
  }
  if (before.descriptionHtml !== after.descriptionHtml) {
    out.push({ field: 'description', from: textMarker(before.descriptionText), to: textMarker(after.descriptionText) });
  }
  return out;
}

/** A move: the column (id and name) and the board when they changed, else the place in the column. */
export function taskMoveChanges(before: TaskRecord, after: TaskRecord): FieldChange[] {
  const out: FieldChange[] = [];
  if (before.boardId !== after.boardId) out.push({ field: 'boardId', from: before.boardId, to: after.boardId });
  if (before.statusId !== after.statusId) {
    out.push({ field: 'status', from: { id: before.statusId, name: before.statusName }, to: { id: after.statusId, name: after.statusName } });
  }
  if (!out.length && before.rank !== after.rank) out.push({ field: 'position', from: before.rank, to: after.rank });
  return out;
}

/** What a new task was created with: the fields set, so the first entry tells the whole story. */
export function taskCreatedChanges(t: Fields): FieldChange[] {
  const out: FieldChange[] = [{ field: 'title', from: null, to: t.title }, { field: 'status', from: null, to: { id: t.statusId, name: t.statusName } }];
  for (const [field, get] of FIELDS.slice(1)) {
    const v = get(t);
    const empty = v === null || v === 0 || (Array.isArray(v) && v.length === 0);
    if (!empty) out.push({ field, from: null, to: v });
  }
  if (t.descriptionText) out.push({ field: 'description', from: null, to: textMarker(t.descriptionText) });
  return out;
}

/** The task an entry is about. */
export const activityTask = (t: TaskRecord) => ({ task: { id: t.id, key: t.key, projectId: t.projectId, boardId: t.boardId } });
