import type { RequestHandler } from 'express';
import { type Actor, type Deps, keys } from '@tt/domain';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The key's user, set once the bearer key is accepted. */
      actor?: Actor;
      /** The use cases' deps for this request when they differ from the process's (a request-scoped transaction). */
      deps?: Deps;
    }
  }
}

/** Resolves the bearer key to the acting user or answers with the spec's auth failure. */
export function authenticateKey(deps: Deps, surface: 'api' | 'mcp'): RequestHandler {
  return async (req, _res, next) => {
    try {
      req.actor = await keys.authenticate({ authorization: req.headers.authorization, ip: req.ip, surface }, deps);
      next();
    } catch (e) {
      next(e);
    }
  };
}
