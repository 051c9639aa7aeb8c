import fc from 'fast-check';

/**
 * fast-check arbitraries for requests to the operations of an OpenAPI 3.1 document: mostly plausible values (real
 * ids from a pool, enum members, days, numbers inside the limits) mixed with hostile ones (NUL, lone surrogates,
 * year 0000, altered cursors, wrong types, unknown fields), so requests get past the first check often enough to
 * reach the use cases and the database.
 */
type Schema = Record<string, any>;

export interface Operation {
  method: string;
  path: string;
  params: Array<{ name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: Schema }>;
  body: Schema | null;
}

export interface FuzzRequest {
  method: string;
  /** The templated path, e.g. /v1/tasks/{ref}: failures are grouped by it. */
  template: string;
  /** The path with its parameters filled and query string appended. */
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** Real ids to draw from, by the kind a parameter name suggests (`projectId` -> project). */
export type Pools = Record<string, string[]>;

export const HOSTILE_STRINGS = [
  '', ' ', '\u0000', 'a\u0000b', '%00', '\ud800', 'x\udfffy', '0000-01-01', '1899-12-31', '10000-01-01', '2026-02-30',
  '9999-12-31', '-1', '1e400', 'NaN', 'null', '{}', "'; DROP TABLE tasks; --", '<script>alert(1)</script>', '../../etc/passwd',
  'x'.repeat(5000), '🙂'.repeat(50), 'WEB-99999999999', 'none', 'me', ',,,', 'todo,nope', 'line\nbreak', '\\', '%', '_',
  'AAAAAAAA.BBBBBBBBBBBBBBBB', '1767225600000|task_x', '1e999', '0x10', '2026-11-23T25:61:00Z', '99999999999999999999',
];
const HOSTILE_NUMBERS = [-1, 0, 1, 0.5, -0.0, 1e21, 2 ** 53, -(2 ** 63), 9.99e307, 604_801, -62_167_219_200_000, 253_402_300_800_000];
const HOSTILE_ANY: unknown[] = [null, true, {}, [], [null], { a: 1 }, 'string', 123, [['x']]];

const hostileString = fc.constantFrom(...HOSTILE_STRINGS);
const hostile = fc.oneof(hostileString, fc.constantFrom(...HOSTILE_NUMBERS), fc.constantFrom(...HOSTILE_ANY));

/** `arb` about once in `every` draws, else undefined (fc.option's freq counts the other way round). */
export const sometimes = <T>(arb: fc.Arbitrary<T>, every: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: every - 1 }, { arbitrary: arb, weight: 1 });

/** The pool kind a field or parameter name points to. */
export function poolKind(name: string): string | null {
  const n = name.toLowerCase();
  const kinds: Array<[RegExp, string]> = [
    [/^(ref|task|taskid|taskids|parentid|parent|tasks)$/, 'task'],
    [/column/, 'status'],
    [/^(doc|docid|docids|docs|page)$/, 'doc'],
    [/^(assignee|assignees|owner|people|author|users)$/, 'user'],
    [/project/, 'project'],
    [/board/, 'board'],
    [/status/, 'status'],
    [/space/, 'space'],
    [/folder/, 'folder'],
    [/meeting/, 'meeting'],
    [/comment|replyto/, 'comment'],
    [/team/, 'team'],
    [/^(userid|userids|assigneeid|assigneeids|reporterid|leadid|memberids|ownerid|createdby|user)$/, 'user'],
    [/webhook/, 'webhook'],
    [/automation/, 'automation'],
    [/delivery/, 'delivery'],
    [/workspace/, 'workspace'],
    [/^(id)$/, 'any'],
    [/key/, 'key'],
  ];
  for (const [re, kind] of kinds) if (re.test(n)) return kind;
  return null;
}

export class ArbitraryBuilder {
  /**
   * `hostileWeight`: how often, out of 20, a field gets a hostile value instead of a plausible one (with many fields a
   * small weight already spoils most bodies); 0 keeps values plausible, and no unknown fields are added either.
   */
  constructor(
    private readonly doc: Schema,
    private readonly pools: Pools,
    private readonly hostileWeight = 1,
  ) {}

  private resolve(s: Schema | undefined): Schema {
    let out = s ?? {};
    for (let i = 0; out.$ref && i < 10; i++) {
      const name = String(out.$ref).replace('#/components/schemas/', '');
      out = this.doc.components?.schemas?.[name] ?? {};
    }
    return out;
  }

  private pool(kind: string | null): fc.Arbitrary<string> | null {
    if (!kind) return null;
    const values = kind === 'any' ? Object.values(this.pools).flat() : this.pools[kind];
    return values && values.length ? fc.constantFrom(...values) : null;
  }

  /** A plausible value of the schema; `name` is the field or parameter it is for. */
  plausible(schema: Schema | undefined, name = '', depth = 0): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    if (depth > 4) return fc.constant(null);
    if (s.anyOf || s.oneOf) return fc.oneof(...(s.anyOf ?? s.oneOf).map((x: Schema) => this.plausible(x, name, depth + 1)));
    if (s.allOf) return this.plausible(Object.assign({}, ...s.allOf.map((x: Schema) => this.resolve(x))), name, depth);
    if (s.enum) return fc.constantFrom(...s.enum);
    if ('const' in s) return fc.constant(s.const);
    const type = Array.isArray(s.type) ? s.type : [s.type];
    if (type.includes('null') && type.length > 1) {
      return fc.oneof({ arbitrary: this.plausible({ ...s, type: type.filter((t: string) => t !== 'null') }, name, depth), weight: 4 }, { arbitrary: fc.constant(null), weight: 1 });
    }
    switch (type[0]) {
      case 'integer':
      case 'number': {
        const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
        const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : Math.max(min, 100_000));
        return fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, Number.MAX_SAFE_INTEGER)) });
      }
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(this.plausible(s.items, name, depth + 1), { maxLength: 3 });
      case 'object':
        return this.object(s, depth);
      default:
        return this.string(s, name);
    }
  }

  private string(s: Schema, name: string): fc.Arbitrary<string> {
    const fromPool = this.pool(poolKind(name));
    const day = fc.date({ min: new Date('1890-01-01'), max: new Date('2100-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    const maxLength = Math.min(s.maxLength ?? 60, 60);
    const minLength = Math.min(s.minLength ?? 0, maxLength);
    const text = fc.string({ minLength, maxLength, unit: 'grapheme' });
    const options: Array<fc.Arbitrary<string>> = [text];
    if (fromPool) options.push(fromPool, fromPool, fromPool);
    if (/date|day|from|to|before|after|due/i.test(name) || /\\d\{4\}/.test(s.pattern ?? '')) options.push(day, day, day);
    if (/since/i.test(name)) options.push(fc.integer({ min: 0, max: 4_000_000_000_000 }).map(String), day);
    if (/^(key)$/i.test(name)) options.push(fc.stringMatching(/^[A-Z][A-Z0-9]{0,9}$/));
    if (/^(url)$/i.test(name)) options.push(fc.constantFrom('https://example.com/hook', 'http://127.0.0.1:9/x', 'http://169.254.169.254/', 'ftp://x'));
    return fc.oneof(...options);
  }

  private object(s: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
    const props: Record<string, Schema> = s.properties ?? {};
    const required = new Set<string>(s.required ?? []);
    const fields: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [k, v] of Object.entries(props)) fields[k] = this.fuzzed(v, k, depth + 1);
    const record = fc.record(fields, { requiredKeys: Object.keys(props).filter((k) => required.has(k)) });
    if (this.hostileWeight === 0) return record;
    return fc.tuple(record, sometimes(fc.tuple(fc.constantFrom('colour', '\u0000', '__proto__', 'id', ''), hostile), 12)).map(([r, extra]) => {
      const out: Record<string, unknown> = { ...r };
      if (extra) Object.defineProperty(out, extra[0], { value: extra[1], enumerable: true, writable: true, configurable: true });
      return out;
    });
  }

  /** A plausible value most of the time, a hostile one sometimes. */
  fuzzed(schema: Schema | undefined, name = '', depth = 0): fc.Arbitrary<unknown> {
    if (this.hostileWeight === 0) return this.plausible(schema, name, depth);
    return fc.oneof({ arbitrary: this.plausible(schema, name, depth), weight: 20 - this.hostileWeight }, { arbitrary: hostile, weight: this.hostileWeight });
  }

  /** A whole request to one operation. `cursors` are real cursors, altered here one character at a time. */
  request(op: Operation, cursors: string[]): fc.Arbitrary<FuzzRequest> {
    const path = op.params.filter((p) => p.in === 'path');
    const query = op.params.filter((p) => p.in === 'query');
    const cursor = cursors.length
      ? fc.oneof(
          fc.constantFrom(...cursors),
          fc.tuple(fc.constantFrom(...cursors), fc.nat(), fc.constantFrom('A', 'z', '0', '-', '_', '.', '%00')).map(([c, i, ch]) => {
            const at = i % c.length;
            return c.slice(0, at) + ch + c.slice(at + 1);
          }),
          hostileString,
        )
      : hostileString;
    const pathArb = fc.tuple(...path.map((p) => fc.oneof({ arbitrary: this.plausible(p.schema, p.name), weight: 5 }, { arbitrary: hostileString, weight: 1 })));
    const queryArb = fc.tuple(
      ...query.map((p) => p.required ? (p.name === 'cursor' ? cursor : this.fuzzed(p.schema, p.name)) : sometimes(p.name === 'cursor' ? cursor : this.fuzzed(p.schema, p.name), 2)),
    );
    const bodyArb = op.body ? fc.oneof({ arbitrary: this.plausible(op.body, 'body'), weight: 6 }, { arbitrary: hostile, weight: 1 }) : fc.constant(undefined);
    const headerArb = sometimes(fc.constantFrom('retry-1', '', '\u00e9', 'x'.repeat(300), '"quoted"'), 8);
    return fc.tuple(pathArb, queryArb, bodyArb, headerArb).map(([pv, qv, body, idem]) => {
      let url = op.path;
      path.forEach((p, i) => (url = url.replace(`{${p.name}}`, encode(wire(pv[i])))));
      const qs = query
        .map((p, i) => (qv[i] === undefined ? null : `${encode(p.name)}=${encode(wire(qv[i]))}`))
        .filter(Boolean)
        .join('&');
      const headers: Record<string, string> = {};
      if (idem !== undefined && op.method === 'post') headers['idempotency-key'] = idem;
      return { method: op.method.toUpperCase(), template: op.path, url: qs ? `${url}?${qs}` : url, headers, body };
    });
  }
}

/** Percent-encoding that also carries lone surrogates (as the invalid UTF-8 bytes a careless client would send). */
function encode(v: string): string {
  return v.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]|[\s\S]/g, (ch) => {
    const u = ch.charCodeAt(0);
    if (ch.length === 1 && u >= 0xd800 && u <= 0xdfff) {
      return [0xe0 | (u >> 12), 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    }
    return encodeURIComponent(ch);
  });
}

/** A value as it travels in a path or query string. */
function wire(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(wire).join(',');
  if (v !== null && typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** The operations of a document, with $ref'd parameters and the JSON request body schema. */
export function operationsOf(doc: Schema): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths ?? {})) {
    for (const method of ['get', 'post', 'patch', 'put', 'delete']) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])]
        .map((p: Schema) => (p.$ref ? doc.components.parameters[String(p.$ref).split('/').pop()!] : p))
        .filter((p: Schema) => p.in === 'path' || p.in === 'query')
        .map((p: Schema) => ({ name: p.name, in: p.in, required: Boolean(p.required), schema: p.schema ?? {} }));
      ops.push({ method, path, params, body: op.requestBody?.content?.['application/json']?.schema ?? null });
    }
  }
  return ops;
}
