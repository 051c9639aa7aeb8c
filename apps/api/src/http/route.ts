import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { NextFunction, Request, Response, Router } from 'express';
import { assertJsonObject, assertShallow, assertStorable, DomainError, ErrorBody, formatIssues, requireScope, type Actor, type Deps, type Scope } from '@tt/domain';
import type { z } from 'zod';
import { describeRateLimit } from './rate-limit-doc.js';
import { describeIdempotency, IdempotencyKeyHeader } from './idempotency.js';
import { describeConditional, type Conditional } from './etag.js';

export interface RouteContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  req: Request;
  res: Response;
  /**
   * The use cases' deps for this request: the routes' own, or, under an Idempotency-Key, the same with a store bound
   * to the request's transaction, so the request's writes and its stored answer commit together.
   */
  deps: Deps;
}

type AnyObject = z.ZodType<Record<string, unknown>>;

export interface RouteDef<P extends AnyObject, Q extends AnyObject, B extends z.ZodType> {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  /** Express path, e.g. /tasks/:ref */
  path: string;
  summary: string;
  tag: string;
  /** Right the key needs; omitted = any valid key. Shown in the OpenAPI document. */
  scope?: Scope;
  params?: P;
  query?: Q;
  body?: B;
  status?: 200 | 201 | 204;
  response?: z.ZodType;
  /** ETag and If-Match / If-None-Match, for the OpenAPI document (the handler does the work). */
  conditional?: Conditional;
  /** Extra response media types, e.g. text/markdown. */
  alternates?: Record<string, string>;
  description?: string;
  handler: (ctx: RouteContext<z.infer<P>, z.infer<Q>, z.infer<B>>) => Promise<unknown>;
}

const ERRORS: Record<string, string> = {
  '400': 'invalid_request: a parameter or the body is wrong; the message names the field',
  '401': 'unauthorized, invalid_key or key_expired',
  '403': 'insufficient_scope, forbidden, ip_not_allowed, api_disabled or plan_required',
  '404': 'not_found: the object does not exist or is invisible to the key',
  '429': 'rate_limited: per-minute request limit exceeded; see retry-after',
};

/** Whether a schema takes a JSON object (every body schema does): then null, an array or a scalar is refused by name. */
const takesObject = (schema: z.ZodType): boolean => (schema.def as { type?: string }).type === 'object';

/** Depth and shape first (jsonBody checked the depth already; path and query come here): the storable check and zod recurse. */
function parse<T extends z.ZodType>(schema: T | undefined, value: unknown, where: string): z.infer<T> {
  assertShallow(value, where);
  // A missing body is an empty one; a JSON null is not, or PATCH with null would change nothing and answer 200.
  if (schema && value !== undefined && takesObject(schema)) assertJsonObject(value, where);
  assertStorable(value, where);
  if (!schema) return (value ?? {}) as z.infer<T>;
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw new DomainError('invalid_request', formatIssues(result.error.issues as never, where));
  return result.data;
}

const openApiPath = (p: string): string => p.replace(/:(\w+)/g, '{$1}');

/** Binds routes to an Express router and describes each one in the OpenAPI registry: one source for both. */
export class Routes {
  constructor(
    readonly router: Router,
    readonly registry: OpenAPIRegistry | null,
    private readonly prefix: string,
    private readonly deps: Deps,
  ) {}

  add<P extends AnyObject, Q extends AnyObject, B extends z.ZodType>(def: RouteDef<P, Q, B>): void {
    this.router[def.method](def.path, async (req: Request, res: Response, next: NextFunction) => {
      try {
        if (def.scope && this.registry) requireScope(actorOf(req), def.scope);
        if (def.body === undefined && req.body !== undefined && Object.keys(req.body ?? {}).length > 0 && def.method !== 'get') {
          throw new DomainError('invalid_request', 'body: this endpoint takes no body');
        }
        const ctx = {
          params: parse(def.params, req.params, 'path'),
          query: parse(def.query, req.query, 'query'),
          body: parse(def.body, req.body, 'body'),
          req,
          res,
          deps: req.deps ?? this.deps,
        };
        const out = await def.handler(ctx as never);
        if (res.headersSent) return;
        const status = def.status ?? 200;
        if (status === 204) res.status(204).end();
        else res.status(status).json(out);
      } catch (e) {
        next(e);
      }
    });
    this.describe(def);
  }

  private describe<P extends AnyObject, Q extends AnyObject, B extends z.ZodType>(def: RouteDef<P, Q, B>): void {
    if (!this.registry) return;
    const status = String(def.status ?? 200);
    const responses: Record<string, { description: string; content?: Record<string, { schema: z.ZodType | { type: 'string' } }> }> = {};
    if (status === '204') responses[status] = { description: 'Done, no body' };
    else {
      const content: Record<string, { schema: z.ZodType | { type: 'string' } }> = {};
      if (def.response) content['application/json'] = { schema: def.response };
      for (const type of Object.keys(def.alternates ?? {})) content[type] = { schema: { type: 'string' } };
      responses[status] = { description: 'Success', content };
    }
    const codes = ['400', '401', '403', '429'];
    if (def.path.includes(':')) codes.push('404');
    if (def.method !== 'get') codes.push('404', '409', '422');
    for (const code of new Set(codes)) {
      responses[code] = { description: ERRORS[code] ?? conflictText(code), content: { 'application/json': { schema: ErrorBody } } };
    }
    const conditionalHeaders = def.conditional ? describeConditional(def.conditional, responses) : [];
    // Only /v1 is rate limited (the operator API is not).
    // The operator API has neither rate limits nor idempotency keys.
    const publicApi = this.prefix === '/v1';
    if (publicApi) describeRateLimit(responses);
    if (publicApi && def.method === 'post') describeIdempotency(responses);
    const scopeText = def.scope ? `Right: \`${def.scope}\`.` : 'Any valid key.';
    this.registry.registerPath({
      method: def.method,
      path: this.prefix + openApiPath(def.path),
      summary: def.summary,
      description: [scopeText, def.description].filter(Boolean).join(' '),
      tags: [def.tag],
      operationId: operationId(def.method, def.path),
      security: [{ bearerAuth: [] }],
      ...(conditionalHeaders.length ? { parameters: conditionalHeaders as never } : {}),
      request: {
        ...(def.params ? { params: def.params as never } : {}),
        ...(def.query ? { query: def.query as never } : {}),
        ...(def.body ? { body: { required: true, content: { 'application/json': { schema: def.body } } } } : {}),
        ...(publicApi && def.method === 'post' ? { headers: IdempotencyKeyHeader } : {}),
      },
      responses: responses as never,
    });
  }
}

function conflictText(code: string): string {
  if (code === '409') return 'archived: the task is archived and cannot be changed';
  if (code === '422') return 'rejected: refused by a business rule; the message gives the reason';
  return 'Error';
}

function operationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((p) => (p.startsWith(':') ? `by-${p.slice(1)}` : p))
    .join('-')
    .split(/[-_]/)
    .filter(Boolean);
  return [method, ...words].map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
}

/** The acting key's user, set by the auth middleware. */
export function actorOf(req: Request): Actor {
  const actor = (req as Request & { actor?: Actor }).actor;
  if (!actor) throw new DomainError('unauthorized', 'Send the API key as Authorization: Bearer <key>');
  return actor;
}
