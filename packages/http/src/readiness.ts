import type { RequestHandler } from 'express';

/**
 * Whether this process is shutting down. From SIGTERM on it answers /ready with 503 `draining` (so load balancers
 * and Kubernetes stop sending it new requests) while it keeps serving; one per process (embedded mode: api and mcp
 * share it through the runtime).
 */
export interface Drain {
  readonly draining: boolean;
  begin(): void;
}

export function createDrain(): Drain {
  let draining = false;
  return {
    get draining() {
      return draining;
    },
    begin() {
      draining = true;
    },
  };
}

/**
 * The /ready body. `checks` says what answered (`database`, `redis`, and the worker's `queue`); `degraded` names the
 * failing checks the process serves without (api and mcp serve without Redis: the rate limit falls back to a
 * per-process budget and the outbox keeps the jobs), so it stays `ready` (200) with them listed; any other failing
 * check makes it `not_ready` (503); a process shutting down is `draining` (503) whatever its checks say.
 */
export interface ReadyBody {
  status: 'ready' | 'not_ready' | 'draining';
  checks: Record<string, boolean>;
  degraded: string[];
}

export function readiness(checks: Record<string, boolean>, o: { optional?: readonly string[]; draining?: boolean } = {}): { ok: boolean; body: ReadyBody } {
  const failing = Object.keys(checks).filter((k) => !checks[k]);
  const degraded = failing.filter((k) => o.optional?.includes(k));
  const ok = !o.draining && failing.length === degraded.length;
  return { ok, body: { status: o.draining ? 'draining' : ok ? 'ready' : 'not_ready', checks, degraded } };
}

export interface ReadyRouteOptions {
  checks: () => Promise<Record<string, boolean>>;
  /** Checks this process serves without (reported in `degraded`, still 200). */
  optional?: readonly string[];
  drain?: Pick<Drain, 'draining'> | undefined;
  /** More fields for the body (the worker's queue counts). */
  extra?: (checks: Record<string, boolean>) => Promise<Record<string, unknown>>;
}

/** GET /ready: 200 when ready (possibly degraded), 503 when not ready or draining. */
export function readyRoute(o: ReadyRouteOptions): RequestHandler {
  return async (_req, res, next) => {
    try {
      const checks = await o.checks();
      const more = o.extra ? await o.extra(checks) : {};
      const { ok, body } = readiness(checks, { optional: o.optional, draining: o.drain?.draining });
      res.status(ok ? 200 : 503).json({ ...body, ...more });
    } catch (e) {
      next(e);
    }
  };
}
