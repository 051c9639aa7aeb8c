import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, DispatchError, type JsonRpcResponse, type RawClientDispatch, type TaskEnabledSession, type WithTasksOptions } from '@modelcontextprotocol/ext-tasks/client';

/**
 * The tasks extension's own client (@modelcontextprotocol/ext-tasks) on the SDK's v2 Client, pinned to 2026-07-28,
 * over HTTP with a key. On a 2026-07-28 server the extension's client sends tools/call and tasks/* itself, framed in
 * the request's `_meta` (the SDK's Client validates tools/call against CallToolResult, which a task is not): `dispatch`
 * below is that raw request path, one POST per request with the standard headers (Mcp-Name carries the tool's name, or
 * the task's id the extension's client puts in its headers).
 */
export interface TasksClient {
  client: Client;
  /** The methods the extension's client sent on its own request path, in order. */
  sent: string[];
  /** The notifications the Client received (a listen's), as the extension's client hears them. */
  notifications: Array<{ method: string; params?: unknown }>;
  session: TaskEnabledSession;
  close(): Promise<void>;
}

/** One JSON-RPC request to `url`, as the extension's client frames it; the answer as its port reads it. */
export function httpDispatch(url: string, token: string, sent: string[] = []): RawClientDispatch {
  let id = 0;
  return async (request, options = {}) => {
    const { method, params } = request as { method: string; params?: Record<string, unknown> };
    sent.push(method);
    const headers: Record<string, string> = {
      'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2026-07-28', 'mcp-method': method,
      ...(method === 'tools/call' && typeof params?.name === 'string' ? { 'mcp-name': params.name } : {}),
      ...options.context?.headers,
    };
    let text: string;
    try {
      const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, ...(request as object) }), signal: options.signal });
      text = await res.text();
    } catch (cause) {
      if (options.signal?.aborted) throw cause;
      throw new DispatchError(`${method} to ${url} failed`, false, { cause });
    }
    const data = text.startsWith('event:') || text.startsWith('data:') ? text.split('\n').find((l) => l.startsWith('data:'))!.slice(5) : text;
    const body = JSON.parse(data) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    return (body.error ? { kind: 'error', error: body.error } : { kind: 'result', result: body.result }) as JsonRpcResponse;
  };
}

/** A task session on the gateway at `base` (its origin) for `token`; `endpointId` names the service (the same for every replica). */
export async function connectTasks(
  base: string, token: string, o: { endpointId?: string } & Pick<WithTasksOptions, 'onError' | 'onInputRequest'> = {},
): Promise<TasksClient> {
  const url = `${base}/mcp`;
  const client = new Client({ name: 'tasks-client', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  const notifications: TasksClient['notifications'] = [];
  const sent: string[] = [];
  // The session keeps the Client's fallback handler and calls it first.
  client.fallbackNotificationHandler = async (n) => void notifications.push(n);
  const session = createTaskSessionFromClient(client, {
    endpointId: o.endpointId ?? 'task-tracker-mcp',
    rawDispatch: httpDispatch(url, token, sent),
    v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo: { name: 'tasks-client', version: '1' }, clientCapabilities: {} },
    ...(o.onError ? { onError: o.onError } : {}),
    ...(o.onInputRequest ? { onInputRequest: o.onInputRequest } : {}),
  });
  return {
    client, session, sent, notifications,
    async close() {
      await session.close().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}
