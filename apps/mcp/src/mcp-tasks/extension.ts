import { ProtocolError, ProtocolErrorCode, type ServerContext } from '@modelcontextprotocol/server';

/** The tasks extension (SEP-2663, 2026-07-28): a tool call may answer a task the client follows (mcp-tasks/runs.ts). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** The client capabilities a request declares (2026-07-28: in each request's envelope, or its `_meta`). */
export function clientCapabilities(req: Pick<ServerContext, 'mcpReq'>): Record<string, unknown> | undefined {
  const envelope = (req.mcpReq.envelope ?? {}) as Record<string, unknown>;
  const caps = envelope[CLIENT_CAPABILITIES] ?? envelope.clientCapabilities ?? (req.mcpReq._meta as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES];
  return caps !== null && typeof caps === 'object' ? (caps as Record<string, unknown>) : undefined;
}

/** Whether the request's client declared the tasks extension: only then may a call answer a task. */
export function followsTasks(req: Pick<ServerContext, 'mcpReq'>): boolean {
  const extensions = clientCapabilities(req)?.extensions as Record<string, unknown> | undefined;
  return extensions?.[TASKS_EXTENSION] !== undefined;
}

/** -32021 (Missing Required Client Capability) for `what`, naming the extension the client must declare. */
export const missingTasksExtension = (what: string) =>
  new ProtocolError(
    ProtocolErrorCode.MissingRequiredClientCapability,
    `${what} needs the ${TASKS_EXTENSION} extension: declare it in the request's client capabilities (extensions)`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
