import {
  type AuthInfo,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  isJsonContentType,
  type JSONRPCMessage,
  type McpServer,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';
import { sendRpcError } from './host-guard.js';

/** JSON-RPC's request timeout: the error a request of the server's own gets when the client never answers it. */
const REQUEST_TIMEOUT = -32001;

/** The most messages one 2025-era batch may hold (the SDK's Streamable HTTP transport allows as many). */
const MAX_BATCH = 100;

type RequestId = string | number;

/**
 * Where a server-to-client request of a call waits for the client's answer (sessions/index.ts): `ask` gives the
 * routing token the client sees as the request's id, and `cancel` stops the wait.
 */
export interface ClientAsks {
  ask(deliver: (answer: JSONRPCMessage) => void): { token: string; cancel: () => void };
}

/** What a message of an exchange is; checked once, against the SDK's schemas, when the body arrives. */
type Kind = 'request' | 'notification' | 'response';

const kindOf = (m: unknown): Kind | undefined =>
  isJSONRPCRequest(m) ? 'request'
  : isJSONRPCNotification(m) ? 'notification'
  : isJSONRPCResultResponse(m) || isJSONRPCErrorResponse(m) ? 'response'
  : undefined;

/**
 * One stateless 2025-era exchange answered in JSON, on the Express request and response as they are. It does what
 * the SDK's Streamable HTTP server transport does in stateless JSON mode (Accept and Content-Type checks, batches,
 * 202 for notifications, one JSON answer holding every response), without turning the Node request into a fetch
 * Request and the answer back into a Node response: that round trip cost more than the rest of the protocol on every
 * call. A notification the server sends mid-call about one of the exchange's requests (progress, a log message), or
 * a request of its own (sampling, elicitation: in a session, see `ask`), turns the answer into an SSE stream on the
 * same response, as the transport allows: those messages, then the responses. The stream ends with the exchange, so
 * nothing outlives the request.
 */
class JsonExchange {
  private readonly answers = new Map<RequestId, JSONRPCMessage | undefined>();
  private finish: ((answers: JSONRPCMessage[]) => void) | undefined;
  /** Every request was answered: the server is free for the next exchange. */
  complete = false;
  private abandoned = false;
  private link: JsonLink | undefined;
  private authInfo: AuthInfo | undefined;
  /** The server's own requests waiting for the client's answer: the server's id -> the routing token the client saw. */
  private readonly asked = new Map<RequestId, { token: string; cancel: () => void }>();

  constructor(
    private readonly rewrite: (message: JSONRPCMessage) => JSONRPCMessage,
    private readonly notice: (message: JSONRPCMessage) => void,
    private readonly ended: () => void,
    private readonly asks: ClientAsks | undefined,
  ) {}

  /** Delivers the messages to `link`'s server; resolves with the responses to the requests among them, in their order. */
  exchange(link: JsonLink, messages: readonly JSONRPCMessage[], kinds: readonly Kind[], authInfo: AuthInfo): Promise<JSONRPCMessage[]> {
    messages.forEach((m, i) => kinds[i] === 'request' && this.answers.set((m as { id: RequestId }).id, undefined));
    const done = new Promise<JSONRPCMessage[]>((resolve) => (this.finish = resolve));
    this.link = link;
    this.authInfo = authInfo;
    link.exchange = this;
    // Every message carries the request's context to the handlers (edge/context.ts).
    for (const m of messages) link.onmessage?.(m, { authInfo });
    if (this.answers.size === 0) this.end([]);
    return done;
  }

  /*
   * What the server sends is told apart by its shape, not by the SDK's schemas: the SDK built it (a response to one of
   * the exchange's requests, or a notification), and parsing a whole result again only to route it cost as much as
   * the rest of the dispatch.
   */
  send(message: JSONRPCMessage, options?: TransportSendOptions): void {
    if ('method' in message) {
      // A notification about a request of this exchange (progress, a log message) goes out on its response stream,
      // and so does a request of the server's own (sampling, elicitation) when the exchange has a session to route
      // the client's answer back by.
      const about = options?.relatedRequestId;
      const open = !this.abandoned && about !== undefined && this.answers.has(about) && this.answers.get(about) === undefined;
      if ('id' in message) return this.ask(message, open);
      if (open) this.notice(this.cancelled(message));
      return;
    }
    const id = message.id;
    if (id === undefined || id === null || !this.answers.has(id) || this.answers.get(id) !== undefined) return;
    this.answers.set(id, this.rewrite(message));
    const all = [...this.answers.values()];
    if (all.every((a) => a !== undefined)) this.end(all as JSONRPCMessage[]);
  }

  /**
   * A request of the server's own: sent on the response stream with a routing token for its id, so the client's
   * answer (a new POST, on any replica) reaches this exchange; without a session (no `asks`) or once the call it
   * belongs to is answered, the server gets an error answer at once instead of waiting for its timeout.
   */
  private ask(request: JSONRPCMessage & { id: RequestId }, open: boolean): void {
    const back = (answer: JSONRPCMessage) => {
      if (this.complete || this.abandoned) return;
      this.asked.get(request.id)?.cancel();
      this.asked.delete(request.id);
      this.link?.onmessage?.({ ...answer, id: request.id } as JSONRPCMessage, { authInfo: this.authInfo });
    };
    if (!open || !this.asks) {
      const error = { code: -32600, message: 'No session to send this request on: the client opened none (Mcp-Session-Id)' };
      queueMicrotask(() => back({ jsonrpc: '2.0', id: request.id, error }));
      return;
    }
    const waiting = this.asks.ask((answer) => {
      // The wait timed out (no answer from the client): the client is told to stop asking its user or model.
      if ('error' in answer && answer.error.code === REQUEST_TIMEOUT && !this.complete && !this.abandoned) {
        this.notice({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: waiting.token, reason: answer.error.message } });
      }
      back(answer);
    });
    this.asked.set(request.id, waiting);
    this.notice({ ...request, id: waiting.token });
  }

  /** The server gave up on one of its requests: the client is told with the id it saw. */
  private cancelled(message: JSONRPCMessage): JSONRPCMessage {
    if (!('method' in message) || message.method !== 'notifications/cancelled') return message;
    const params = message.params as { requestId?: RequestId } | undefined;
    const asked = params?.requestId === undefined ? undefined : this.asked.get(params.requestId);
    if (!asked) return message;
    asked.cancel();
    this.asked.delete(params!.requestId!);
    return { ...message, params: { ...params, requestId: asked.token } };
  }

  private stopAsking(): void {
    for (const a of this.asked.values()) a.cancel();
    this.asked.clear();
  }

  /** A client gone mid-call: the exchange ends with what was answered (nothing is written to a closed response). */
  abandon(): void {
    this.stopAsking();
    this.abandoned = true;
    this.finish?.([...this.answers.values()].filter((a): a is JSONRPCMessage => a !== undefined));
  }

  private end(answers: JSONRPCMessage[]): void {
    this.stopAsking();
    this.complete = true;
    this.finish?.(answers);
    this.ended();
  }
}

/**
 * The transport a 2025-era server is connected to once, for as long as it lives: each exchange in turn takes it, so
 * a request neither connects the server nor closes it (a close tears the protocol's state down and builds an error,
 * with its stack, for calls that have none left). Only a client gone mid-call closes the server, which aborts the
 * handlers still running for it, as the SDK's transports do; its next exchange connects it again. A handler must not
 * send anything once it has answered (none does): the server may then be serving another exchange, whose request can
 * carry the same id.
 */
class JsonLink implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  /** The exchange the server serves now; none between two. */
  exchange: JsonExchange | undefined;

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.exchange?.send(message, options);
  }

  async close(): Promise<void> {
    const exchange = this.exchange;
    this.exchange = undefined;
    exchange?.abandon();
    this.onclose?.();
  }
}

/**
 * Serves a parsed 2025-era POST with a server that serves nothing else meanwhile: `rewrite` sees each response before
 * it is sent, and `authInfo` (the request's context) goes with every message. Once every request is answered the
 * server is handed to `keep`, still connected (the pool serves it again), or closed when there is no `keep` (a server
 * of its own); a client gone mid-call closes it, which stops what it still runs for that client.
 */
export async function serveJsonExchange(
  server: McpServer, authInfo: AuthInfo, req: Request, res: Response, rewrite: (m: JSONRPCMessage) => JSONRPCMessage,
  keep?: (server: McpServer) => void, asks?: ClientAsks,
): Promise<void> {
  const accept = req.get('accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    return sendRpcError(res, 406, 'Not Acceptable: Client must accept both application/json and text/event-stream');
  }
  if (!isJsonContentType(req.get('content-type') ?? null)) {
    return sendRpcError(res, 415, 'Unsupported Media Type: Content-Type must be application/json');
  }
  const body: unknown = req.body;
  const batch = Array.isArray(body);
  const raw: unknown[] = batch ? body : [body];
  if (raw.length > MAX_BATCH) return sendRpcError(res, 400, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`, -32600);
  const kinds = raw.map(kindOf);
  if (raw.length === 0 || kinds.includes(undefined)) return sendRpcError(res, 400, 'Parse error: Invalid JSON-RPC message', -32700);

  let streaming = false;
  const event = (m: JSONRPCMessage) => res.write(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
  const notice = (m: JSONRPCMessage) => {
    if (res.writableEnded || res.destroyed) return;
    if (!streaming) {
      streaming = true;
      res.status(200).set({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
    }
    event(m);
  };
  const connected = server.server.transport;
  const link = connected instanceof JsonLink ? connected : new JsonLink();
  if (link !== connected) await server.connect(link);
  const exchange = new JsonExchange(rewrite, notice, () => {
    link.exchange = undefined;
    if (keep) keep(server);
    else void server.close();
  }, asks);
  res.on('close', () => {
    if (!exchange.complete) void server.close();
  });
  const answers = await exchange.exchange(link, raw as JSONRPCMessage[], kinds as Kind[], authInfo);
  if (res.writableEnded || res.destroyed) return;
  if (streaming) {
    for (const answer of answers) event(answer);
    res.end();
  } else if (!kinds.includes('request')) res.status(202).end();
  else res.status(200).json(batch ? answers : answers[0]);
}
