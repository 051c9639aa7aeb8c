import { type JSONRPCMessage, PerRequestHTTPServerTransport, type Transport, type TransportSendOptions } from '@modelcontextprotocol/server';

/**
 * A message's way from a transport into the SDK's protocol layer and, on the 2026-07-28 side, its answer's way back,
 * without the work the SDK does for transports it knows nothing about. Both eras' messages reach the protocol already
 * classified: the 2025 side's exchange (json-exchange.ts) checked each against the SDK's schemas when the body
 * arrived, and the SDK's 2026-07-28 handler classified its request before connecting a server to it. The protocol's
 * own `onmessage` then tried every request as a result and as an error first: two failed schema parses a call, whose
 * issues zod's memoizer keeps past the request, so they were promoted to the old generation with it.
 */

/** The SDK protocol's own handlers per kind of message (protected members of its `Protocol`). */
interface Dispatch {
  connect(transport: Transport): Promise<void>;
  _onrequest(message: JSONRPCMessage, extra?: unknown): void;
  _onnotification(message: JSONRPCMessage, extra?: unknown): void;
}

/**
 * What the JSON answer below uses of the SDK's single-exchange transport (its own fields: they say whether the
 * exchange still waits for its one answer, and in which form).
 */
interface Exchange {
  _closed: boolean;
  _requestId: unknown;
  _terminalDelivered: boolean;
  _sse: unknown;
  _responseMode: string;
  _deferredResponse: unknown;
  settleResponse(response: unknown): void;
  close(): Promise<void>;
}

/**
 * Installs the direct ways on `server` (an SDK `Server`): each transport it connects to hands requests and
 * notifications straight to the protocol's handler for them (a response from the client, or anything else, takes the
 * protocol's own path), and a 2026-07-28 exchange answered with a result leaves as a JsonAnswer (below).
 */
export function dispatchDirectly(server: object): void {
  const s = server as Dispatch;
  const connect = s.connect.bind(s);
  s.connect = async (transport) => {
    await connect(transport);
    const checked = transport.onmessage!;
    transport.onmessage = (message, extra) => {
      if (!('method' in message)) checked(message, extra);
      else if ('id' in message) s._onrequest(message, extra);
      else s._onnotification(message, extra);
    };
    if (transport instanceof PerRequestHTTPServerTransport) answerInJson(transport);
  };
}

/**
 * The SDK's single-exchange transport answers a result with a fetch `Response.json`: the answer serialised into a
 * byte stream that serveWebExchange (web-exchange.ts) then read back whole, and a stream that is (on Node.js 20) a
 * transferable object with a weak native handle, which outlives the scavenges until a full collection and keeps the
 * answer with it. A result that would be answered in plain JSON (the exchange waits for it, streams nothing, and no
 * stream was asked for) is settled as a JsonAnswer instead, which serveWebExchange writes out once. Everything else
 * (errors, with their HTTP status; SSE; anything the transport drops) goes the SDK's way.
 */
function answerInJson(transport: PerRequestHTTPServerTransport): void {
  const t = transport as unknown as Exchange;
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage, options?: TransportSendOptions) => {
    if ('result' in message && !t._closed && !t._terminalDelivered && t._sse === undefined && t._responseMode !== 'sse' && t._requestId !== undefined && message.id === t._requestId) {
      t._terminalDelivered = true;
      t.settleResponse(new JsonAnswer(message));
      // The exchange has its answer; the transport no longer holds it. The handler's context keeps the transport (the
      // SDK's per-request closures share one scope with it), and on Node.js 20 that context outlives the scavenges
      // with the request's AbortSignal: holding the answer too, it promoted every answer whole.
      t._deferredResponse = undefined;
      queueMicrotask(() => void t.close());
      return;
    }
    return send(message, options);
  };
}

/** A 2026-07-28 exchange's result, answered 200 in JSON as the SDK's transport would answer it (see answerInJson). */
export class JsonAnswer {
  readonly status = 200;
  constructor(readonly message: JSONRPCMessage) {}
}
