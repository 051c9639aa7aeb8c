import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';

/** The SDK's fetch-style handler face (createMcpHandler's `fetch`). */
export type FetchHandler = (request: globalThis.Request, options?: { authInfo?: AuthInfo; parsedBody?: unknown }) => Promise<globalThis.Response>;

/**
 * Serves an Express request (body already parsed) with the SDK's fetch-style handler. Unlike the generic Node
 * adapter, the fetch Request carries no body (the handler takes the parsed one, so a copy would be serialized and
 * never read), and a JSON answer is written in one piece with its length instead of being iterated as a stream.
 * Streams (the SSE of subscriptions/listen) are piped with backpressure, and end when the client goes away.
 */
export async function serveFetch(handler: FetchHandler, req: Request, res: Response, authInfo: AuthInfo | undefined): Promise<void> {
  const abort = new AbortController();
  let finished = false;
  res.on('close', () => finished || abort.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  headers.delete('content-length');
  const request = new globalThis.Request(`http://${req.headers.host ?? 'localhost'}${req.originalUrl}`, { method: req.method, headers, signal: abort.signal });
  const response = await handler(request, { ...(authInfo && { authInfo }), parsedBody: req.body });

  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => (out[name] = value));
  const streamed = (out['content-type'] ?? '').startsWith('text/event-stream');
  if (!streamed || response.body === null) {
    const text = response.body === null ? '' : await response.text();
    finished = true;
    if (res.destroyed) return;
    out['content-length'] = String(Buffer.byteLength(text));
    res.writeHead(response.status, out).end(text);
    return;
  }
  res.writeHead(response.status, out);
  res.flushHeaders();
  const reader = response.body.getReader();
  const closed = new Promise<void>((resolve) => abort.signal.addEventListener('abort', () => resolve(), { once: true }));
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), closed.then(() => undefined)]);
      if (next === undefined || next.done) break;
      if (!res.write(next.value)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
    }
  } catch {
    // The stream failed or was cancelled: end the response below.
  } finally {
    finished = true;
    void reader.cancel().catch(() => undefined);
    if (!res.destroyed) res.end();
  }
}
