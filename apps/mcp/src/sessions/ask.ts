import { ProtocolError, type ResultTypeMap, SdkError, SdkErrorCode, type ServerContext } from '@modelcontextprotocol/server';
import { DomainError } from '@tt/domain';
import { gateValue } from '../answer/gate.js';
import { contextOf } from '../edge/context.js';
import { ASK_TIMEOUT_CODE, ASK_TIMEOUT_MS } from './index.js';

/** The server-to-client requests a call may make on 2025-era revisions, with the capability the client must declare. */
const NEEDS = { 'sampling/createMessage': 'sampling', 'elicitation/create': 'elicitation', 'roots/list': 'roots' } as const;
type AskMethod = keyof typeof NEEDS;

/**
 * Asks the client something in the middle of a call (2025-era revisions): the request goes out on the call's own SSE
 * response and the answer comes back in a new POST, on any replica (sessions/index.ts routes it to this call). It
 * needs a session whose client declared the capability at initialize; an error answer, or no answer within the
 * session's wait (ASK_TIMEOUT_MS unless the gateway sets another), is a DomainError the tool answers as a tool
 * error, so the call always ends cleanly. What the client is asked leaves through the answer gate like an answer (its
 * model reads it): no smuggling character, tags neutralised, names on one line.
 * (2026-07-28 has no server-to-client requests: a tool answers input_required there.)
 */
export async function askClient<M extends AskMethod>(
  req: ServerContext, method: M, params: Record<string, unknown>,
): Promise<ResultTypeMap[M]> {
  const session = contextOf(req).mcpSession;
  const capability = NEEDS[method];
  if (!session) throw new DomainError('invalid_request', `${method} needs a session: initialize without Mcp-Session-Id, then send the id the answer carries`);
  if (!session.can[capability]) throw new DomainError('invalid_request', `this client did not declare ${capability} in its capabilities at initialize, so it cannot be asked ${method}`);
  // The wait is the session's (sessions/index.ts times it out); the SDK's own timeout only backs it up, far later.
  const timeout = ASK_TIMEOUT_MS * 10;
  const late = () => new DomainError('invalid_request', `the client did not answer ${method} in time; the call ended without its answer`);
  try {
    return (await req.mcpReq.send({ method, params: gateValue(params) } as { method: M; params: Record<string, unknown> }, { timeout })) as ResultTypeMap[M];
  } catch (e) {
    if (e instanceof SdkError && e.code === SdkErrorCode.RequestTimeout) throw late();
    if (e instanceof ProtocolError && e.code === ASK_TIMEOUT_CODE) throw late();
    if (e instanceof ProtocolError) throw new DomainError('rejected', `the client answered ${method} with an error: ${e.message}`);
    throw e;
  }
}
