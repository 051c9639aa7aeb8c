import { Receiver } from '../../apps/worker/src/test/receiver.js';

type Request = Receiver['requests'][number];

/** The delivery ids (`x-tracker-delivery`) received for each task of a task.created event. */
export function taskCreatedDeliveries(requests: readonly Request[]): Map<string, Set<string>> {
  const byTask = new Map<string, Set<string>>();
  for (const r of requests) {
    const body = JSON.parse(r.body) as { type: string; data: { task?: { id: string } } };
    const taskId = body.data.task?.id;
    if (body.type === 'task.created' && taskId) byTask.set(taskId, (byTask.get(taskId) ?? new Set()).add(String(r.headers['x-tracker-delivery'])));
  }
  return byTask;
}

/**
 * For the fault tests: of the tasks `ids`, those never delivered, and the tasks delivered under more than one
 * delivery id.
 */
export function missingAndDoubled(receiver: Receiver, ids: readonly string[]): readonly [number, number] {
  const byTask = taskCreatedDeliveries(receiver.requests);
  return [ids.filter((id) => !byTask.has(id)).length, [...byTask.values()].filter((d) => d.size > 1).length];
}
