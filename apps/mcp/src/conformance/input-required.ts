import { randomBytes } from 'node:crypto';
import {
  createRequestStateCodec, inputRequired, type InputRequest, inputResponse, type InputRequiredResult, ProtocolError, ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { clientCapabilities } from '../mcp-tasks/extension.js';
import { defineTool, ok, type CallToolResult, type ToolDef } from '../tool.js';

/*
 * The suite's multi-round-trip fixtures (2026-07-28, SEP-2322): a tool answers `input_required` with the requests the
 * client must fulfil (elicitation, sampling, roots), and completes when the client calls again with the answers. No
 * state stays on the server between rounds: what a later round needs travels in `requestState`, signed with the
 * SDK's HMAC codec so that a tampered state is refused.
 */

/**
 * Fixtures only: one key per process, so every round of a flow must reach the same process (CI runs one). A real
 * feature would share the key between replicas through the configuration.
 */
const codec = createRequestStateCodec<{ step: number }>({ key: randomBytes(32), bind: (req) => `${req.mcpReq.method}\0${req.http?.authInfo?.clientId ?? ''}` });

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;
const NONE = z.object({}).loose();
type Answer = CallToolResult | InputRequiredResult;

const ask = {
  name: (message = 'What is your name?') => inputRequired.elicit({ message, requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }),
  color: () => inputRequired.elicit({ message: 'Step 2: What is your favorite color?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] } }),
  confirm: () => inputRequired.elicit({ message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } }),
  sample: (text: string, maxTokens: number) => inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens }),
  roots: () => inputRequired.listRoots(),
};

/** The responses of a retried call, by key; the keys the client failed to answer. */
const responses = (req: ServerContext) => req.mcpReq.inputResponses;
const missing = (req: ServerContext, keys: string[]) => keys.filter((k) => inputResponse(responses(req), k).kind === 'missing');

/** The echoed state, verified; a state that fails the check is -32602 (never trusted, never half-used). */
async function stateOf(req: ServerContext): Promise<{ step: number } | undefined> {
  const raw = req.mcpReq.requestState();
  if (typeof raw !== 'string') return undefined;
  try {
    return await codec.verify(raw, req);
  } catch {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'requestState: failed its integrity check; start the call again without it', { argument: 'requestState' });
  }
}

/** Asks for `requests` until each has an answer, then completes with `done`. */
const until = (requests: Record<string, () => InputRequest>, done: (req: ServerContext) => CallToolResult, signed = false) =>
  async (req: ServerContext): Promise<Answer> => {
    const state = signed ? await stateOf(req) : undefined;
    const open = missing(req, Object.keys(requests));
    if (open.length === 0 && (!signed || state)) return done(req);
    const inputRequests = Object.fromEntries(Object.entries(requests).map(([k, make]) => [k, make()]));
    return inputRequired({ inputRequests, ...(signed ? { requestState: await codec.mint({ step: 1 }, req) } : {}) });
  };

const elicited = (req: ServerContext, key: string, field: string): string => {
  const r = inputResponse(responses(req), key);
  const v = r.kind === 'elicit' ? r.content?.[field] : undefined;
  return typeof v === 'string' ? v : 'unknown';
};

const tool = (name: string, description: string, run: (req: ServerContext) => Promise<Answer>): ToolDef<typeof NONE, Answer> =>
  defineTool<typeof NONE, Answer>({ name, title: name, description, input: NONE, annotations: READ, run: (_a, _c, req) => run(req) });

/** Whether the client said it can answer `capability` (its per-request capabilities on 2026-07-28). */
const clientCan = (req: ServerContext, capability: string): boolean => clientCapabilities(req)?.[capability] !== undefined;

export const INPUT_TOOLS: ReadonlyArray<ToolDef<typeof NONE, Answer>> = [
  tool('test_input_required_result_elicitation', 'Asks the user for a name', until({ user_name: () => ask.name() }, (req) => ok(`Hello, ${elicited(req, 'user_name', 'name')}!`))),
  tool('test_input_required_result_sampling', 'Asks the client to sample', until({ capital_question: () => ask.sample('What is the capital of France?', 100) }, (req) => {
    const r = inputResponse(responses(req), 'capital_question');
    const content = r.kind === 'sampling' ? r.result.content : undefined;
    const said = content && !Array.isArray(content) && content.type === 'text' ? content.text : 'no text';
    return ok(`Sampling answered: ${said}`);
  })),
  tool('test_input_required_result_list_roots', 'Asks the client for its roots', until({ client_roots: () => ask.roots() }, (req) => {
    const r = inputResponse(responses(req), 'client_roots');
    return ok(`Roots: ${r.kind === 'roots' ? r.roots.map((root) => root.uri).join(', ') || 'none' : 'none'}`);
  })),
  tool('test_input_required_result_request_state', 'Asks for a confirmation and keeps signed state', until({ confirm: () => ask.confirm() }, () => ok('state-ok: confirmed'), true)),
  tool('test_input_required_result_multiple_inputs', 'Asks for a name, a sample and the roots at once', until(
    { user_name: () => ask.name(), greeting: () => ask.sample('Generate a greeting', 50), client_roots: () => ask.roots() },
    (req) => ok(`All inputs received for ${elicited(req, 'user_name', 'name')}`), true,
  )),
  tool('test_input_required_result_multi_round', 'Asks in two rounds', async (req) => {
    const state = await stateOf(req);
    if (state?.step === 2 && missing(req, ['step2']).length === 0) return ok(`Done: ${elicited(req, 'step2', 'color')}`);
    if (state?.step === 1 && missing(req, ['step1']).length === 0) {
      return inputRequired({ inputRequests: { step2: ask.color() }, requestState: await codec.mint({ step: 2 }, req) });
    }
    return inputRequired({ inputRequests: { step1: ask.name('Step 1: What is your name?') }, requestState: await codec.mint({ step: 1 }, req) });
  }),
  tool('test_input_required_result_tampered_state', 'Keeps signed state and refuses it tampered', until({ confirm: () => ask.confirm() }, () => ok('state-ok'), true)),
  tool('test_input_required_result_capabilities', 'Asks only for what the client declared', async (req) => {
    const requests: Record<string, InputRequest> = {};
    if (clientCan(req, 'elicitation')) requests.user_name = ask.name();
    if (clientCan(req, 'sampling')) requests.capital_question = ask.sample('What is the capital of France?', 100);
    if (clientCan(req, 'roots')) requests.client_roots = ask.roots();
    const keys = Object.keys(requests);
    if (keys.length === 0 || missing(req, keys).length === 0) return ok('Nothing more to ask');
    return inputRequired({ inputRequests: requests });
  }),
];

/** The prompt fixture that asks for context before it answers. */
export const contextPrompt = async (req: ServerContext): Promise<InputRequiredResult | string> => {
  if (missing(req, ['user_context']).length === 0) return `Use this context: ${elicited(req, 'user_context', 'context')}`;
  return inputRequired({
    inputRequests: {
      user_context: inputRequired.elicit({ message: 'What context should the prompt use?', requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] } }),
    },
  });
};
