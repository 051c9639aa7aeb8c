import type { Request, Response } from 'express';
import { type Actor, type Deps, DomainError, tasks } from '@tt/domain';
import { gateValue } from '../answer/gate.js';
import { rpcIdOf, sendRpcError } from '../edge/host-guard.js';
import { detailedTask } from '../mcp-tasks/runs.js';

/**
 * `subscriptions/listen` with `notifications.taskIds` (the tasks extension): the SDK's listen router knows only the
 * core filters, so these streams are served here. The stream acknowledges the filter, sends each task's current state
 * at once, then its state after every change (`notifications/tasks`), read again from the database when the change
 * feed tells of it, so a run driven by another replica is heard too. Only the key that started a task may listen to it.
 */
interface TaskStream {
  actor: Actor;
  res: Response;
  id: string | number | null;
}

export function taskListens(o: { deps: Deps; perStream: number }) {
  const byRun = new Map<string, Set<TaskStream>>();

  const write = (s: TaskStream, method: string, params: unknown) => {
    if (!s.res.writableEnded) s.res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method, params: gateValue(params) })}\n\n`);
  };
  const send = async (s: TaskStream, runId: string) => {
    const run = await tasks.getRun(s.actor, runId, o.deps).catch((e: unknown) => (e instanceof DomainError ? undefined : Promise.reject(e)));
    if (run) write(s, 'notifications/tasks', { ...detailedTask(run), _meta: { 'io.modelcontextprotocol/subscriptionId': s.id } });
  };

  return {
    /** Ends every stream with its completion result (the gateway drains: clients listen again on another replica). */
    closeAll(): void {
      const all = new Set([...byRun.values()].flatMap((set) => [...set]));
      for (const s of all) {
        if (!s.res.writableEnded) s.res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: s.id, result: { resultType: 'complete' } })}\n\n`);
      }
    },
    /** A run changed (any replica): its listeners hear its state. */
    async changed(workspaceId: string, runId: string): Promise<void> {
      const streams = [...(byRun.get(runId) ?? [])].filter((s) => s.actor.workspace.id === workspaceId);
      await Promise.all(streams.map((s) => send(s, runId)));
    },
    /** Serves a listen whose filter names tasks; answers the JSON-RPC error itself when it refuses. */
    async serve(req: Request, res: Response, actor: Actor, taskIds: unknown): Promise<void> {
      const id = rpcIdOf(req.body);
      if (!Array.isArray(taskIds) || taskIds.some((t) => typeof t !== 'string') || taskIds.length === 0 || taskIds.length > o.perStream) {
        return sendRpcError(res, 200, `Invalid params: taskIds: 1 to ${o.perStream} task ids`, -32602, id);
      }
      const ids = [...new Set(taskIds as string[])];
      for (const t of ids) {
        // Another key's task answers as an unknown one, as tasks/get does.
        const known = await tasks.getRun(actor, t, o.deps).then(() => true, (e: unknown) => (e instanceof DomainError ? false : Promise.reject(e)));
        if (!known) return sendRpcError(res, 200, `Invalid params: taskIds: no task ${t}`, -32602, id, { taskId: t });
      }
      const s: TaskStream = { actor, res, id };
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' });
      write(s, 'notifications/subscriptions/acknowledged', { notifications: { taskIds: ids }, _meta: { 'io.modelcontextprotocol/subscriptionId': id } });
      for (const t of ids) {
        let set = byRun.get(t);
        if (!set) byRun.set(t, (set = new Set()));
        set.add(s);
      }
      res.once('close', () => {
        for (const t of ids) {
          byRun.get(t)?.delete(s);
          if (!byRun.get(t)?.size) byRun.delete(t);
        }
      });
      for (const t of ids) await send(s, t);
    },
  };
}
