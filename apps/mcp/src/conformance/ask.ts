import { type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { askClient } from '../sessions/ask.js';
import { defineTool, ok, type ToolDef } from '../tool.js';

/*
 * The suite's 2025-era fixtures that ask the client mid-call (sampling/createMessage, elicitation/create). Each is a
 * thin use of askClient (sessions/ask.ts), the gateway's one way of asking: the request goes out on the call's SSE
 * response and the answer, posted to any replica, is routed back to the call.
 */

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;
const NONE = z.object({}).loose();

const elicit = (req: ServerContext, message: string, requestedSchema: Record<string, unknown>) =>
  askClient(req, 'elicitation/create', { mode: 'form', message, requestedSchema });

const done = (r: { action: string; content?: unknown }) => ok(`Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`);

export const ASK_TOOLS: ReadonlyArray<ToolDef<z.ZodObject>> = [
  defineTool({
    name: 'test_sampling', title: 'test_sampling', description: 'Asks the client to sample a completion of the prompt',
    input: z.object({ prompt: z.string().describe('The prompt to send to the LLM') }), annotations: READ,
    run: async (args, _ctx, req) => {
      const r = await askClient(req, 'sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: args.prompt } }], maxTokens: 100 });
      const content = Array.isArray(r.content) ? r.content[0] : r.content;
      return ok(`LLM response: ${content && content.type === 'text' ? content.text : '(no text)'}`);
    },
  }),
  defineTool({
    name: 'test_elicitation', title: 'test_elicitation', description: 'Asks the user for a name and an email',
    input: z.object({ message: z.string().describe('The message to show the user') }), annotations: READ,
    run: async (args, _ctx, req) => {
      const r = await elicit(req, args.message, {
        type: 'object',
        properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } },
        required: ['username', 'email'],
      });
      return ok(`User response: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`);
    },
  }),
  defineTool({
    name: 'test_elicitation_sep1034_defaults', title: 'test_elicitation_sep1034_defaults', description: 'Asks with a default for every primitive type',
    input: NONE, annotations: READ,
    run: async (_args, _ctx, req) => done(await elicit(req, 'Please review and update the form fields with defaults', {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'User name', default: 'John Doe' },
        age: { type: 'integer', description: 'User age', default: 30 },
        score: { type: 'number', description: 'User score', default: 95.5 },
        status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
        verified: { type: 'boolean', description: 'Verification status', default: true },
      },
      required: [],
    })),
  }),
  defineTool({
    name: 'test_elicitation_sep1330_enums', title: 'test_elicitation_sep1330_enums', description: 'Asks with every kind of enum',
    input: NONE, annotations: READ,
    run: async (_args, _ctx, req) => done(await elicit(req, 'Please select options from the enum fields', {
      type: 'object',
      properties: {
        untitledSingle: { type: 'string', description: 'Untitled single-select', enum: ['option1', 'option2', 'option3'] },
        titledSingle: {
          type: 'string', description: 'Titled single-select',
          oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' }],
        },
        legacyEnum: { type: 'string', description: 'Legacy titled enum', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
        untitledMulti: { type: 'array', description: 'Untitled multi-select', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
        titledMulti: {
          type: 'array', description: 'Titled multi-select',
          items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }, { const: 'value3', title: 'Third Choice' }] },
        },
      },
      required: [],
    })),
  }),
];
