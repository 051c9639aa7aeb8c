import { describe, expect, it } from 'vitest';
import { type Acked, compareMoment, type CreateWrites, restoreFailures } from './checks.mjs';

/** What n creates write: the task, its task.created entry, its notify.assigned job and (every other one) its automations job. */
function writesOf(acked: Acked[]): CreateWrites {
  const w: CreateWrites = { tasks: [], activity: [], outbox: [] };
  acked.forEach((a, i) => {
    w.tasks.push({ id: a.id, key: a.key });
    w.activity.push({ id: `act_${a.id}`, task_id: a.id, task_key: a.key });
    const payload = JSON.stringify({ taskId: a.id });
    if (i % 2 === 0) w.outbox.push({ id: String(2 * i + 1), name: 'automations.task_created', taskId: a.id, payload });
    w.outbox.push({ id: String(2 * i + 2), name: 'notify.assigned', taskId: a.id, payload });
  });
  return w;
}

const acked = (from: number, to: number, phase: string): Acked[] =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ id: `task_${from + i}`, key: `DRILL-${from + i}`, phase }));
const before = acked(1, 6, 'before');
const after = acked(7, 9, 'after');
const atMoment = writesOf(before);

/** A restore as the drill sees it, from the writes the restored cluster holds. */
function restoreOf(restored: CreateWrites) {
  const present = new Set(restored.tasks.map((t) => t.id));
  const gets = Object.fromEntries([...before, ...after].map((a) => [a.id, present.has(a.id) ? 200 : 404]));
  const activityOf = Object.fromEntries(before.filter((a) => present.has(a.id)).map((a) => [a.id, ['task.created']]));
  return restoreFailures({ before, after, atMoment, restored, listed: restored.tasks, gets, activityOf });
}

describe('the restore drill checks', () => {
  it('pass when the restore holds exactly the moment', () => {
    expect(compareMoment(before, atMoment)).toEqual([]);
    expect(restoreOf(writesOf(before))).toEqual([]);
  });

  it('fail when creates acknowledged after the moment came back (a restore without its target)', () => {
    const failures = restoreOf(writesOf([...before, ...after]));
    expect(failures).toContainEqual(expect.stringMatching(/^SQL tasks: 3 acknowledged after the moment present: DRILL-7/));
    expect(failures).toContainEqual(expect.stringMatching(/^REST GET \/v1\/tasks\/\{key\}: 3 acknowledged after the moment not 404/));
    expect(failures).toContainEqual(expect.stringMatching(/^SQL outbox \(create jobs\): 5 rows not there at the moment/));
  });

  it('fail when creates acknowledged before the moment are missing', () => {
    const failures = restoreOf(writesOf(before.slice(0, 4)));
    expect(failures).toContainEqual('SQL tasks: 2 acknowledged before the moment missing: task_5, task_6');
    expect(failures).toContainEqual(expect.stringMatching(/^SQL activity \(task.created\): 2 rows of the moment missing/));
  });

  it('fail when a task lost its activity entry or outbox row, or one names a task that is not there', () => {
    const restored = writesOf(before);
    restored.activity = restored.activity.filter((e) => e.task_id !== 'task_2');
    restored.outbox = restored.outbox.filter((j) => !(j.taskId === 'task_3' && j.name === 'notify.assigned'));
    restored.outbox.push({ id: '99', name: 'notify.assigned', taskId: 'task_77', payload: '{"taskId":"task_77"}' });
    const failures = restoreOf(restored);
    expect(failures).toContain('restored: DRILL-2 has 0 task.created entries, not 1');
    expect(failures).toContain('restored: DRILL-3 has 0 notify.assigned outbox rows, not 1');
    expect(failures).toContain('restored: outbox notify.assigned row 99 names task task_77, which is not there');
  });

  it('fail when the source at the moment does not hold what was acknowledged', () => {
    expect(compareMoment([...before, ...after.slice(0, 1)], atMoment)).toEqual(['source at the moment: 1 acknowledged before the moment missing: task_7']);
  });
});
