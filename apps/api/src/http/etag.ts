import type { Request, Response } from 'express';
import { ErrorBody, PreconditionFailed, type Versioned, type WriteOptions } from '@tt/domain';

/**
 * ETag and conditional requests (RFC 9110 section 13) for tasks, pages and projects. The domain keeps a version per
 * object and checks If-Match inside the write's transaction; this file only reads the headers and writes the ETag.
 */

/** The strong ETag of a version: `"7"`. */
export const etagOf = (version: number): string => `"${version}"`;

/** The entity tags of an If-Match / If-None-Match value: `*`, or the tags of a comma list (each `"x"` or `W/"x"`). */
function entityTags(header: string): '*' | Array<{ weak: boolean; tag: string }> {
  if (header.trim() === '*') return '*';
  const tags: Array<{ weak: boolean; tag: string }> = [];
  for (const m of header.matchAll(/(W\/)?"([^"]*)"|([^,\s]+)/g)) {
    // A bare token is not an entity tag; it is kept so that it can only fail to match.
    if (m[3] !== undefined) tags.push({ weak: false, tag: `\u0000${m[3]}` });
    else tags.push({ weak: m[1] !== undefined, tag: m[2]! });
  }
  return tags;
}

const VERSION = /^[1-9][0-9]{0,9}$/;

/**
 * If-Match as a write precondition: undefined without the header or with `*` (every write needs the object to exist
 * anyway); else the versions named by strong tags. Weak tags never match (strong comparison), nor do tags this server
 * never sends, so a list of only those leaves nothing to match and the write is refused.
 */
export function ifMatch(req: Request): WriteOptions {
  const header = req.get('if-match');
  if (header === undefined) return {};
  const tags = entityTags(header);
  if (tags === '*') return {};
  return { ifMatch: tags.filter((t) => !t.weak && VERSION.test(t.tag)).map((t) => Number(t.tag)) };
}

/** If-None-Match compares weakly: `W/"7"` and `"7"` both match version 7; `*` matches any existing object. */
function noneMatchHit(req: Request, version: number): boolean {
  const header = req.get('if-none-match');
  if (header === undefined) return false;
  const tags = entityTags(header);
  return tags === '*' || tags.some((t) => t.tag === String(version));
}

/** A versioned answer of a write: the ETag header, and the object in the `data` envelope. */
export function tagged<T>(res: Response, v: Versioned<T>): { data: T } {
  res.setHeader('ETag', etagOf(v.version));
  return { data: v.data };
}

/**
 * A versioned answer of a GET: 304 without a body when If-None-Match names the current version (the caller must then
 * answer nothing more), else the ETag and the object.
 */
export function taggedRead<T>(req: Request, res: Response, v: Versioned<T>): { data: T } | undefined {
  res.setHeader('ETag', etagOf(v.version));
  if (noneMatchHit(req, v.version)) {
    res.status(304).end();
    return undefined;
  }
  return { data: v.data };
}

/** Runs a conditional write; when its precondition fails, the 412 answer carries the object's current ETag. */
export async function conditionalWrite<T>(res: Response, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (e instanceof PreconditionFailed) res.setHeader('ETag', etagOf(e.currentVersion));
    throw e;
  }
}

type Responses = Record<string, { description: string; headers?: Record<string, unknown>; content?: unknown }>;

const ETAG_HEADER = {
  description: 'Strong entity tag: the version of the object, changed by every write that changes what GET shows of it. Send it back in If-Match.',
  schema: { type: 'string', example: '"7"' },
};

/** How an operation takes part in conditional requests, for the OpenAPI document. */
export type Conditional = 'read' | 'create' | 'write';

/**
 * Describes ETag, If-Match / If-None-Match and the 304 / 412 answers of an operation; returns the header parameters
 * to add. `read`: GET with If-None-Match; `create`: answers with an ETag; `write`: If-Match, and an ETag unless 204.
 */
export function describeConditional(kind: Conditional, responses: Responses): Array<Record<string, unknown>> {
  for (const [code, r] of Object.entries(responses)) {
    if (code.startsWith('2') && code !== '204') r.headers = { ...r.headers, ETag: ETAG_HEADER };
  }
  if (kind === 'read') {
    responses['304'] = { description: 'Not modified: If-None-Match names the current version; no body', headers: { ETag: ETAG_HEADER } };
    return [
      {
        in: 'header', name: 'If-None-Match', required: false, schema: { type: 'string' }, example: '"7"',
        description: 'ETags seen before (comma list, or `*`); when one names the current version the answer is 304 without a body.',
      },
    ];
  }
  if (kind === 'create') return [];
  responses['412'] = {
    description: 'precondition_failed: If-Match does not name the current version; the message and the ETag header give the current one',
    headers: { ETag: ETAG_HEADER },
    content: { 'application/json': { schema: ErrorBody } },
  };
  return [
    {
      in: 'header', name: 'If-Match', required: false, schema: { type: 'string' }, example: '"7"',
      description:
        'Makes the write conditional: it happens only if the object is still at one of these ETags (strong comparison; `W/` tags never ' +
        'match), else 412 precondition_failed and nothing changes. Without it the write is unconditional.',
    },
  ];
}
