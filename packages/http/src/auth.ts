import type { RequestHandler } from 'express';
import { type Actor, type Deps, keys, tasks } from '@tt/domain';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The key's user, set once the bearer key is accepted. */
      actor?: Actor;
      /** The use cases' deps for this request when they differ from the process's (a request-scoped transaction). */
      deps?: Deps;
      /** The task a by-key read names, read with its key (see authenticateKey's `readsTask`). */
      taskReadAhead?: tasks.TaskReadAhead;
    }
  }
}

/**
 * Resolves the bearer key to the acting user or answers with the spec's auth failure. `readsTask` names the task a
 * request reads by key (undefined for any other request): that task is read in the key's statement, and kept on the
 * request for its route, which uses it only for the same task and form (tasks.getTaskVersioned's `readAhead`).
 */
export function authenticateKey(deps: Deps, surface: 'api' | 'mcp', readsTask?: (req: Parameters<RequestHandler>[0]) => string | undefined): RequestHandler {
  return async (req, _res, next) => {
    try {
      const auth = { authorization: req.headers.authorization, ip: req.ip, surface };
      const ref = readsTask?.(req);
      if (ref === undefined) req.actor = await keys.authenticate(auth, deps);
      else ({ actor: req.actor, task: req.taskReadAhead } = await tasks.authenticateReadingTask(auth, ref, deps));
      next();
    } catch (e) {
      next(e);
    }
  };
}
