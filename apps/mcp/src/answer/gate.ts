import { AsyncLocalStorage } from 'node:async_hooks';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { DomainError } from '@tt/domain';
import { fence, neutralise, plain, strip, wellFormed } from './untrusted.js';

/*
 * The one gate every answer leaves through. The server installs it under every request handler (`installGate`), so a
 * tool, prompt, resource or completion registered later cannot answer around it: whatever a handler returns or throws
 * passes `gateResult` or `gateError` on its way to the client, and listen streams' notifications pass `gateValue`.
 *
 * What it does, in this order: removes the smuggling characters (strip) and keeps the strings well-formed UTF-16 (a
 * lone surrogate, the half of a pair a cut left, becomes U+FFFD), and only then escapes; so a character removed
 * cannot join the two halves of a disguised tag after the escaping. Then:
 * - text the server composed (tool text, prompt messages, resource contents): a block tag that is not one the server
 *   wrote, or is out of place (an opening tag inside a block, a closing tag outside one), has its `<` written `&lt;`;
 *   the fences themselves are made by answer/untrusted.ts, whose renderings put every person-written string in one.
 * - structured values (structuredContent, list entries, completions, error data): every string is neutralised like
 *   fenced text, and names and titles (the keys in NAME_KEYS) are put on one line.
 * - errors: one line, neutralised, at most about 1 500 characters; a fault of ours is -32603 with no detail, a bad
 *   argument the domain refused is -32602.
 */

/**
 * Texts the server's own renderers made (answer/answer.ts `bound`, the JSON format, tool.ts `ok` and the tool errors)
 * in the request being answered: the gate trusts their block structure. Any other text a handler returns is fenced
 * whole as person-written, so a surface registered without the renderers still cannot put text outside a block. The
 * marks belong to the request (each gated handler runs with a set of its own), so nothing of one answer outlives it.
 */
const COMPOSED = new AsyncLocalStorage<Set<string>>();

/** Marks `text` as made by the server's renderers, for the gate that will see it (outside a request: not marked). */
export function composed(text: string): string {
  COMPOSED.getStore()?.add(text);
  return text;
}

const takeComposed = (text: string): boolean => COMPOSED.getStore()?.has(text) ?? false;

/** Keys whose string values are names or titles: one line in every answer. */
const NAME_KEYS = new Set([
  'name', 'title', 'displayName', 'jobTitle', 'owner', 'ownerName', 'company', 'companyName', 'label', 'labels', 'speaker', 'speakers',
  'participants', 'author', 'authorName', 'user', 'userName', 'assignee', 'assignees', 'reporter', 'project', 'projectName', 'board',
  'boardName', 'column', 'columnName', 'status', 'statusName', 'space', 'spaceName', 'folder', 'folderName', 'meeting', 'meetingTitle',
  'team', 'teamName', 'taskTitle', 'docTitle', 'pageTitle', 'client', 'clientName',
]);

/**
 * Every string of a value through the gate; under a name key (at any depth below it) on one line. A value the gate
 * leaves as it is comes back as it is (the same object, not a copy): an answer's structured content is copied only
 * down the paths where a string or a key changed.
 */
export function gateValue<T>(value: T, inName = false): T {
  return rewrite(value, inName, gateString, gateKey);
}

function gateString(text: string, inName: boolean): string {
  const clean = neutralise(wellFormed(text));
  return inName ? plain(clean) : clean;
}

/**
 * Every string and key of a value through `text` and `key` (strings under a name key, at any depth, with `inName`),
 * copied only down the paths where one changed: a value left as it is comes back as it is, the same object.
 */
function rewrite<T>(value: T, inName: boolean, text: (s: string, inName: boolean) => string, key: (k: string) => string): T {
  if (typeof value === 'string') return text(value, inName) as T;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = rewrite(value[i] as unknown, inName, text, key);
      if (!out && v !== value[i]) out = value.slice(0, i);
      out?.push(v);
    }
    return (out ?? value) as T;
  }
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source);
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = rewrite(source[k], inName || NAME_KEYS.has(k), text, key);
    const k2 = k === '__proto__' ? k : key(k);
    if (!out && (v !== source[k] || k2 !== k)) {
      out = {};
      for (const earlier of keys.slice(0, i)) put(out, earlier, source[earlier]);
    }
    if (out) put(out, k2, v);
  }
  return (out ?? value) as T;
}

/** Sets a key of a copy; a key `__proto__` is defined as an own property, not set as the prototype. */
function put(out: Record<string, unknown>, key: string, v: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
  else out[key] = v;
}

const gateKey = (k: string): string => (/^[\w$.-]*$/.test(k) ? k : plain(wellFormed(k)));

/** A tag an untrusted-text block starts or ends with, exactly as answer/untrusted.ts writes them. */
const OPEN = /^<untrusted-text(?: [a-z]+="[^"<>\n]*")*>/;
const CLOSE = /^<\/untrusted-text>/;
/** Anything that reads as a block tag: `<`, or a look-alike, then a name that folds to "untrust...". */
const TAG_START = /[<\u2039\u02C2\u1438\u276E\u27E8\u29FC\u3008\u2329\uFE64\uFF1C]/g;

/**
 * Text the server composed, through the gate: no smuggling character, well-formed, and only the server's own block
 * tags, balanced; any other tag-like `<` (a name placed outside a block, a forged tag) becomes `&lt;`.
 */
export function gateText(text: string): string {
  let t = strip(wellFormed(text));
  // ASCII that never names the tag cannot hold one (look-alikes of `<` and of its letters are not ASCII).
  if (!/untrust/i.test(t) && /^[^\u0080-\uffff]*$/.test(t)) return t;
  let depth = 0;
  let out = '';
  let last = 0;
  for (const m of t.matchAll(TAG_START)) {
    const at = m.index;
    const rest = t.slice(at, at + 200);
    if (rest.startsWith('<')) {
      if (depth === 0 && OPEN.test(rest)) {
        depth = 1;
        continue;
      }
      if (depth === 1 && CLOSE.test(rest)) {
        depth = 0;
        continue;
      }
    }
    // Not the server's tag in its place: disarmed when it resembles one (neutralise's rule on this one spot).
    if (neutralise(rest.slice(0, 60)).startsWith('&lt;') || /^<\s*\/?\s*untrusted/i.test(rest)) {
      out += t.slice(last, at) + '&lt;';
      last = at + m[0].length;
    }
  }
  t = out + t.slice(last);
  return t;
}

/** A content item of a result (text, resource contents, prompt messages): its text through gateText, the rest through gateValue. */
function gateContent(item: unknown): unknown {
  if (item === null || typeof item !== 'object') return gateValue(item);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item as Record<string, unknown>)) {
    if (k === 'text' && typeof v === 'string') out[k] = gateText(takeComposed(v) ? v : fence('text', v));
    else if ((k === 'content' || k === 'contents' || k === 'messages') && (Array.isArray(v) || (v !== null && typeof v === 'object'))) {
      out[k] = Array.isArray(v) ? v.map(gateContent) : gateContent(v);
    } else if (k === 'blob' || k === 'data' || k === 'uri' || k === 'mimeType' || k === 'type' || k === 'role') out[k] = typeof v === 'string' ? strip(wellFormed(v)) : v;
    else out[k] = gateValue(v, NAME_KEYS.has(k));
  }
  return out;
}

/**
 * A request's result through the gate: `content`, `contents` and `messages` (the texts the model reads) as composed
 * text, `structuredContent` and every other value (titles of lists, completion values, descriptions) as values.
 */
export function gateResult<T>(result: T): T {
  if (result === null || typeof result !== 'object') return result;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(result as Record<string, unknown>)) {
    if ((k === 'content' || k === 'contents' || k === 'messages') && Array.isArray(v)) out[k] = v.map(gateContent);
    else if (k === '_meta' || k === 'isError' || k === 'resultType' || k === 'nextCursor') out[k] = v;
    else if (k === 'instructions' && typeof v === 'string') out[k] = gateText(v);
    else out[k] = gateValue(v, NAME_KEYS.has(k));
  }
  return out as T;
}

/** The longest error message. */
const ERROR_MAX = 1500;

/** An error message on one line, neutralised, cut to about 1 500 characters. */
export function errorLine(message: string): string {
  const one = plain(strip(wellFormed(message))).replace(/\s+/g, ' ').trim();
  return one.length > ERROR_MAX ? `${one.slice(0, ERROR_MAX).replace(/[\uD800-\uDBFF]$/, '')}... (cut)` : one;
}

/** An error through the gate: what the client gets instead. */
export function gateError(e: unknown, onFault: (e: unknown) => string): ProtocolError {
  if (e instanceof ProtocolError) {
    const out = new ProtocolError(e.code, errorLine(e.message), e.data === undefined ? undefined : gateValue(e.data));
    // Keep the class (ResourceNotFoundError and kin are read by the transport): only the text changes.
    Object.setPrototypeOf(out, Object.getPrototypeOf(e) as object);
    return out;
  }
  if (e instanceof DomainError && e.status < 500) return new ProtocolError(ProtocolErrorCode.InvalidParams, errorLine(`${e.code}: ${e.message}`), { code: e.code });
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'number' && Number.isSafeInteger(code) && code !== ProtocolErrorCode.InternalError && e instanceof Error) {
    return new ProtocolError(code, errorLine(e.message));
  }
  return new ProtocolError(ProtocolErrorCode.InternalError, errorLine(onFault(e)));
}

/** What `installGate` needs of the SDK's server: the protected hook every registered request handler passes. */
type Handler = (request: unknown, ctx: unknown) => Promise<unknown>;
interface Hookable {
  _wrapHandler(method: string, handler: Handler): Handler;
  _requestHandlers: Map<string, Handler>;
  setRequestHandler(method: string, a: unknown, b?: unknown): void;
}

/** Results that are the server's own definitions (tool and prompt lists, the handshake): strings kept as written, only swept. */
const DEFINITIONS = new Set(['initialize', 'server/discover', 'ping', 'tools/list', 'prompts/list', 'resources/templates/list']);

/**
 * A definition's strings swept of smuggling characters and lone surrogates, nothing else changed. Like gateValue, a
 * value the sweep leaves as it is comes back as it is: a tool list the server wrote clean is not copied on every call.
 */
export function sweepDefinition<T>(value: T): T {
  return rewrite(value, false, sweepString, sameKey);
}

const sweepString = (text: string): string => strip(wellFormed(text));
const sameKey = (k: string): string => k;

/** Marks a context whose request reached its handler (so a fault before it, the SDK's parameter check, is -32602). */
const reached = new WeakSet<object>();

/**
 * Installs the gate under every request handler of `server` (an SDK `Server`), those set already and any set later:
 * the SDK passes each handler it stores through `_wrapHandler`, McpServer's registrations and ours alike. Results
 * leave through gateResult, errors through gateError; `onFault` logs a fault of ours and says what the client reads.
 */
export function installGate(server: object, onFault: (e: unknown, method: string, ctx: unknown) => string): void {
  const s = server as Hookable;
  const gated = (method: string, handler: Handler): Handler => (request, ctx) => {
    const marks = new Set<string>();
    return COMPOSED.run(marks, () => answer(method, handler, request, ctx, marks));
  };
  const answer = async (method: string, handler: Handler, request: unknown, ctx: unknown, marks: Set<string>): Promise<unknown> => {
    try {
      const result = await handler(request, ctx);
      return DEFINITIONS.has(method) ? sweepDefinition(result) : gateResult(result);
    } catch (e) {
      const before = ctx !== null && typeof ctx === 'object' && !reached.has(ctx);
      // The SDK checks a request's parameters before the handler runs, and throws a plain Error with a validation dump.
      if (before && !(e instanceof ProtocolError) && !(e instanceof DomainError)) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, errorLine(`Invalid params for ${method}: ${firstIssue(e)}`));
      }
      throw gateError(e, (x) => onFault(x, method, ctx));
    } finally {
      // Every promise and timer made while the handler ran holds this store (a pooled connection's idle timer, a
      // socket's): emptied, it no longer keeps the answer's texts alive until a full collection.
      marks.clear();
    }
  };
  const inner = s._wrapHandler.bind(s);
  s._wrapHandler = (method, handler) => gated(method, inner(method, handler));
  // The handler itself (after the SDK's parameter check) marks its context, so a fault before it reads as bad params.
  const set = s.setRequestHandler.bind(s);
  s.setRequestHandler = (method, a, b) => (typeof a === 'function' ? set(method, markReached(a as Handler)) : set(method, a, markReached(b as Handler)));
  for (const [method, handler] of s._requestHandlers) s._requestHandlers.set(method, gated(method, handler));
}

const markReached = (handler: Handler): Handler => (request, ctx) => {
  if (ctx !== null && typeof ctx === 'object') reached.add(ctx);
  return handler(request, ctx);
};

/** The first fault of a validation dump, on one line, naming its field when it says it. */
function firstIssue(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  try {
    const issues = JSON.parse(message) as Array<{ path?: unknown[]; message?: string }>;
    if (Array.isArray(issues) && issues[0]) return `${(issues[0].path ?? []).join('.') || 'params'}: ${issues[0].message ?? 'invalid'}`;
  } catch {
    // Not JSON: its first line.
  }
  return message.split('\n')[0]!.slice(0, 200);
}
