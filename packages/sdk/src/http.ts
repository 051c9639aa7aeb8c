import { ApiError, apiErrorFrom, ConnectionError, parseRateLimit, TaskTrackerError, TimeoutError, type RateLimitInfo } from './errors.js';
import { operations, type OperationId, type OperationSpec, type RequestSpec } from './operations.js';
import type { ItemOf, Page, PagedOperationId, ResponseOf } from './responses.js';
import { idempotencyKeyFor, resendable, resendDelayMs } from './idempotency.js';

/** The `fetch` the client calls; any WHATWG-compatible implementation works. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** Server address, with or without the `/v1` (or `/admin/v1`) suffix: `https://tracker.example.com/v1`. */
  baseUrl: string;
  /** API key, sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Time limit of each HTTP attempt in milliseconds; default 30 000; 0 = none. */
  timeoutMs?: number;
  /**
   * How many times a 429 answer is retried after waiting `retry-after`, and a POST carrying an Idempotency-Key is resent
   * after a lost connection, a timeout, a 5xx or 409 idempotency_conflict; default 2; 0 = never.
   */
  maxRetries?: number;
  /**
   * Give every `/v1` POST an Idempotency-Key (a new UUID per call unless the call passes one) so it can be resent
   * safely; default true. With false, only calls passing `idempotencyKey` are resent.
   */
  idempotencyKeys?: boolean;
  /** Longest wait before a retry; a longer `retry-after` fails at once with the 429 ApiError. Default 60 000 ms. */
  maxRetryDelayMs?: number;
  /** A custom fetch (tests, proxies, instrumentation); default the global fetch. */
  fetch?: FetchLike;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /** Called before each wait-and-retry. */
  onRetry?: (info: RetryInfo) => void;
  /** Called for every HTTP answer, errors included (rate-limit state, request ids). */
  onResponse?: (info: ResponseInfo) => void;
}

/** Options of a single call. */
export interface RequestOptions {
  /** Aborts the call, including a wait before a retry; the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout; 0 = none. */
  timeoutMs?: number;
  /** Overrides the client's retry count for 429 answers; 0 = no retry. */
  maxRetries?: number;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
  /** Sent as `x-request-id`; the server echoes it and logs under it. */
  requestId?: string;
  /**
   * Idempotency-Key of this POST: sending the call again with the same key (a retry after a timeout, even from another
   * process) returns the first answer instead of doing it twice. Reuse it only for the same request.
   */
  idempotencyKey?: string;
}

export interface RetryInfo {
  method: string;
  path: string;
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  error: ApiError;
}

export interface ResponseInfo {
  method: string;
  path: string;
  status: number;
  requestId: string | null;
  rateLimit: RateLimitInfo | null;
  /** True when the answer is the stored answer of an earlier call with the same Idempotency-Key. */
  replayed: boolean;
}

export type QueryInput = Record<string, string | number | boolean | Date | readonly (string | number)[] | null | undefined>;

export interface CallInput {
  params?: Record<string, string>;
  query?: object;
  body?: unknown;
}

interface RawAnswer {
  status: number;
  text: string;
  etag: string | null;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;

/** Sends requests described by the operations manifest: URL building, timeouts, aborts, 429 retries, errors. */
export class HttpClient {
  /** Rate-limit state of the most recent answer that carried the headers. */
  lastRateLimit: RateLimitInfo | null = null;
  private readonly root: string;

  constructor(private readonly options: ClientOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    if (!options.apiKey) throw new TypeError('apiKey is required');
    this.root = options.baseUrl.replace(/\/+$/, '').replace(/(\/admin)?\/v1$/, '');
  }

  /** Calls an operation of the manifest and returns its parsed JSON answer (undefined for 204). */
  async call<Op extends OperationId>(op: Op, input: CallInput = {}, opts: RequestOptions = {}): Promise<ResponseOf<Op>> {
    return this.request<ResponseOf<Op>>(operations[op], input, opts);
  }

  /** Calls an operation that has a text form and returns the text (Markdown, plain text). */
  async text(op: OperationId, input: CallInput, opts: RequestOptions = {}): Promise<string> {
    const spec: OperationSpec = operations[op];
    return (await this.send(spec, input, opts, spec.text ?? 'text/plain')).text;
  }

  /** Sends any described request (the operator API uses this) and parses the JSON answer; undefined for 204. */
  async request<T>(spec: RequestSpec, input: CallInput = {}, opts: RequestOptions = {}): Promise<T> {
    return (await this.requestTagged<T>(spec, input, opts)).body;
  }

  /** Calls an operation and returns its parsed JSON answer with the answer's ETag header (null when it has none). */
  async callTagged<Op extends OperationId>(op: Op, input: CallInput = {}, opts: RequestOptions = {}): Promise<{ body: ResponseOf<Op>; etag: string | null }> {
    return this.requestTagged<ResponseOf<Op>>(operations[op], input, opts);
  }

  private async requestTagged<T>(spec: RequestSpec, input: CallInput, opts: RequestOptions): Promise<{ body: T; etag: string | null }> {
    const answer = await this.send(spec, input, opts, 'application/json');
    return { body: this.parse<T>(spec, answer), etag: answer.etag };
  }

  private parse<T>(spec: RequestSpec, answer: RawAnswer): T {
    if (spec.status === 204 || answer.text === '') return undefined as T;
    try {
      return JSON.parse(answer.text) as T;
    } catch (e) {
      throw new TaskTrackerError(`${spec.method} ${spec.path}: the answer is not JSON`, { cause: e });
    }
  }

  /** Walks a paged list page by page, following `nextCursor` from the given query's cursor. */
  async *pages<Op extends PagedOperationId>(op: Op, input: CallInput = {}, opts: RequestOptions = {}): AsyncGenerator<ResponseOf<Op>, void, undefined> {
    let cursor = (input.query as { cursor?: string } | undefined)?.cursor;
    do {
      const page = (await this.call(op, { ...input, query: { ...input.query, cursor } }, opts)) as Page<unknown>;
      yield page as ResponseOf<Op>;
      if (page.nextCursor !== null && page.nextCursor === cursor) throw new TaskTrackerError(`${op}: the server repeated cursor ${cursor}`);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  /** Walks every item of a paged list, fetching pages as the loop goes. */
  async *items<Op extends PagedOperationId>(op: Op, input: CallInput = {}, opts: RequestOptions = {}): AsyncGenerator<ItemOf<Op>, void, undefined> {
    for await (const page of this.pages(op, input, opts)) yield* (page as Page<ItemOf<Op>>).data;
  }

  private async send(spec: RequestSpec, input: CallInput, opts: RequestOptions, accept: string): Promise<RawAnswer> {
    const path = fillPath(spec.path, input.params ?? {});
    const url = this.root + path + queryString((input.query ?? {}) as QueryInput);
    const maxRetries = opts.maxRetries ?? this.options.maxRetries ?? DEFAULT_MAX_RETRIES;
    const maxDelay = this.options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
    const key = idempotencyKeyFor(spec, opts.idempotencyKey, [this.options.headers, opts.headers], this.options.idempotencyKeys !== false && maxRetries > 0);
    for (let attempt = 0; ; attempt++) {
      let answer: { res: Response; text: string };
      try {
        answer = await this.attempt(spec.method, url, path, input.body, accept, { ...opts, idempotencyKey: key });
      } catch (e) {
        // Resent only with a key: then a request that did get through is replayed, not done twice. (onRetry reports answers.)
        if (key === undefined || attempt >= maxRetries || !resendable(e)) throw e;
        await sleep(Math.min(resendDelayMs(e, attempt), maxDelay), opts.signal);
        continue;
      }
      const { res, text } = answer;
      if (res.ok) return { status: res.status, text, etag: res.headers.get('etag') };
      const error = apiErrorFrom(res, parseJson(text), spec.method, path, parseRateLimit(res.headers));
      if (key !== undefined && error.status !== 429 && attempt < maxRetries && resendable(error)) {
        const delayMs = resendDelayMs(error, attempt);
        if (delayMs > maxDelay) throw error;
        this.options.onRetry?.({ method: spec.method, path, attempt: attempt + 1, delayMs, error });
        await sleep(delayMs, opts.signal);
        continue;
      }
      if (error.status !== 429 || attempt >= maxRetries) throw error;
      const delayMs = retryDelayMs(error, attempt);
      if (delayMs > maxDelay) throw error;
      this.options.onRetry?.({ method: spec.method, path, attempt: attempt + 1, delayMs, error });
      await sleep(delayMs, opts.signal);
    }
  }

  /** One HTTP exchange, body included, under the timeout and the caller's signal. */
  private async attempt(method: string, url: string, path: string, body: unknown, accept: string, opts: RequestOptions) {
    const signal = opts.signal;
    signal?.throwIfAborted();
    const timeoutMs = opts.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const controller = new AbortController();
    let timedOut = false;
    const timer = timeoutMs > 0 && Number.isFinite(timeoutMs)
      ? setTimeout(() => {
        timedOut = true;
        controller.abort(new TimeoutError(timeoutMs, method, path));
      }, timeoutMs)
      : undefined;
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let res: Response;
    let text: string;
    try {
      res = await this.fetch(url, { method, headers: this.headers(accept, body !== undefined, opts), body: body === undefined ? undefined : JSON.stringify(body), signal: controller.signal });
      text = await res.text();
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      if (timedOut) throw new TimeoutError(timeoutMs, method, path);
      if (e instanceof TaskTrackerError) throw e;
      throw new ConnectionError(method, path, e);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    const rateLimit = parseRateLimit(res.headers);
    if (rateLimit) this.lastRateLimit = rateLimit;
    this.options.onResponse?.({
      method, path, status: res.status, requestId: res.headers.get('x-request-id'), rateLimit, replayed: res.headers.get('idempotent-replayed') === 'true',
    });
    return { res, text };
  }

  private fetch(url: string, init: RequestInit): Promise<Response> {
    if (this.options.fetch) return this.options.fetch(url, init);
    if (typeof globalThis.fetch !== 'function') throw new TaskTrackerError('No global fetch: pass options.fetch');
    return globalThis.fetch(url, init);
  }

  private headers(accept: string, hasBody: boolean, opts: RequestOptions): Record<string, string> {
    const h: Record<string, string> = { accept, ...this.options.headers, ...opts.headers, authorization: `Bearer ${this.options.apiKey}` };
    if (hasBody) h['content-type'] = 'application/json';
    if (opts.requestId) h['x-request-id'] = opts.requestId;
    if (opts.idempotencyKey !== undefined) {
      // One header, whatever casing the caller's headers used.
      for (const name of Object.keys(h)) if (name.toLowerCase() === 'idempotency-key') delete h[name];
      h['idempotency-key'] = opts.idempotencyKey;
    }
    return h;
  }
}

/** Waits `retry-after`; without it the window reset, else 1 s, 2 s, 4 s ... */
function retryDelayMs(error: ApiError, attempt: number): number {
  if (error.retryAfter !== null) return error.retryAfter * 1000;
  if (error.rateLimit && error.rateLimit.resetSeconds > 0) return error.rateLimit.resetSeconds * 1000;
  return 1000 * 2 ** attempt;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') throw new TypeError(`Path parameter ${name} is required`);
    return encodeURIComponent(value);
  });
}

/** Query string: undefined and null are left out, lists become comma lists, dates ISO 8601. */
export function queryString(query: QueryInput): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) search.set(name, value.join(','));
    else if (value instanceof Date) search.set(name, value.toISOString());
    else search.set(name, String(value));
  }
  const s = search.toString();
  return s ? `?${s}` : '';
}
