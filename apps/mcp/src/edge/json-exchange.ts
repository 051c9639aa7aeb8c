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

/** The most messages one 2025-era batch may hold (the SDK's Streamable HTTP transport allows as many). */
const MAX_BATCH = 100;

type RequestId = string | number;

/**
 * One stateless 2025-era exchange answered in JSON, on the Express request and response as they are. It does what
 * the SDK's Streamable HTTP server transport does in stateless JSON mode (Accept and Content-Type checks, batches,
 * 202 for notifications, one JSON answer holding every response), without turning the Node request into a fetch
 * Request and the answer back into a Node response: that round trip cost more than the rest of the protocol on every
 * call. A notification the server sends mid-call about one of the exchange's requests (progress, a log message)
 * turns the answer into an SSE stream on the same response, as the transport allows: the notifications, then the
 * responses. The stream ends with the exchange, so nothing outlives the request.
 */
class JsonExchange implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  private readonly answers = new Map<RequestId, JSONRPCMessage | undefined>();
  private finish: ((answers: JSONRPCMessage[]) => void) | undefined;
  private closed = false;

  constructor(
    private readonly authInfo: AuthInfo,
    private readonly rewrite: (message: JSONRPCMessage) => JSONRPCMessage,
    private readonly notice: (message: JSONRPCMessage) => void,
  ) {}

  async start(): Promise<void> {}

  /** Delivers the messages; resolves with the responses to the requests among them, in their order. */
  exchange(messages: readonly JSONRPCMessage[]): Promise<JSONRPCMessage[]> {
    for (const m of messages) if (isJSONRPCRequest(m)) this.answers.set(m.id, undefined);
    const done = new Promise<JSONRPCMessage[]>((resolve) => (this.finish = resolve));
    // Every message carries the request's context to the handlers (edge/context.ts).
    for (const m of messages) this.onmessage?.(m, { authInfo: this.authInfo });
    if (this.answers.size === 0) this.finish?.([]);
    return done;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isJSONRPCNotification(message)) {
      // A notification about a request of this exchange (progress, a log message) goes out on its response stream.
      const about = options?.relatedRequestId;
      if (!this.closed && about !== undefined && this.answers.has(about) && this.answers.get(about) === undefined) this.notice(message);
      return;
    }
    if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) return;
    const id = message.id;
    if (id === undefined || id === null || !this.answers.has(id)) return;
    this.answers.set(id, this.rewrite(message));
    const all = [...this.answers.values()];
    if (all.every((a) => a !== undefined)) this.finish?.(all as JSONRPCMessage[]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A client gone mid-call: the exchange ends with what was answered (nothing is written to a closed response).
    this.finish?.([...this.answers.values()].filter((a): a is JSONRPCMessage => a !== undefined));
    this.onclose?.();
  }
}

const isMessage = (m: unknown): m is JSONRPCMessage =>
  isJSONRPCRequest(m) || isJSONRPCNotification(m) || isJSONRPCResultResponse(m) || isJSONRPCErrorResponse(m);

/**
 * Serves a parsed 2025-era POST with a server that serves nothing else meanwhile: `rewrite` sees each response before
 * it is sent, and `authInfo` (the request's context) goes with every message. The server is closed once the client is
 * gone (after the answer, or mid-call when it disconnects), which frees it for the next request.
 */
export async function serveJsonExchange(
  server: McpServer, authInfo: AuthInfo, req: Request, res: Response, rewrite: (m: JSONRPCMessage) => JSONRPCMessage,
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
  if (raw.length === 0 || !raw.every(isMessage)) return sendRpcError(res, 400, 'Parse error: Invalid JSON-RPC message', -32700);

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
  const transport = new JsonExchange(authInfo, rewrite, notice);
  res.on('close', () => void server.close());
  await server.connect(transport);
  const answers = await transport.exchange(raw);
  if (res.writableEnded || res.destroyed) return;
  if (streaming) {
    for (const answer of answers) event(answer);
    res.end();
  } else if (!raw.some(isJSONRPCRequest)) res.status(202).end();
  else res.status(200).json(batch ? answers : answers[0]);
}
