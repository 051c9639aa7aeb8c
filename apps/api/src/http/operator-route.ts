import { Id, z } from '@tt/domain';
import type { Routes } from './route.js';

const id = z.strictObject({ id: Id });

/** One operator endpoint in short form: the path is its summary, `:id` its only parameter, `{ data }` its answer (none for 204). */
export type OperatorRoute = (
  method: 'get' | 'post' | 'patch' | 'put' | 'delete',
  path: string,
  body: z.ZodType | undefined,
  status: 200 | 201 | 204,
  run: (params: { id: string }, body: never) => Promise<unknown>,
) => void;

/** The short form of operator endpoints (workspaces, people, keys, access, archiving, spaces and folders), bound to a router. */
export function operatorRoute(r: Routes): OperatorRoute {
  return (method, path, body, status, run) =>
    r.add({
      method, path, summary: path, tag: 'Operator', status, params: path.includes(':id') ? id : undefined, body,
      handler: async ({ params, body: b }) => {
        const out = await run(params as { id: string }, b as never);
        return status === 204 ? undefined : { data: out };
      },
    });
}
