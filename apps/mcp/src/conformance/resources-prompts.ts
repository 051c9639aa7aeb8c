import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { composed } from '../answer/gate.js';
import { definePrompt, type PromptDef } from '../prompts/prompt.js';
import { PNG_BASE64 } from './content.js';
import { contextPrompt } from './input-required.js';

/** The suite's resources: a text, a binary and a template whose variable the answer repeats. */
export function registerFixtureResources(server: McpServer): void {
  server.registerResource('static-text', 'test://static-text', { title: 'Static text', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: composed('This is the content of the static text resource.') }],
  }));
  server.registerResource('static-binary', 'test://static-binary', { title: 'Static binary', mimeType: 'image/png' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG_BASE64 }],
  }));
  server.registerResource('template', new ResourceTemplate('test://template/{id}/data', { list: undefined }), { title: 'Template', mimeType: 'application/json' }, (uri, vars) => {
    const id = String(vars.id ?? '');
    // The id is the client's text: it is written as JSON, and the gate fences it like any text not of ours.
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }] };
  });
}

const noArgs = z.object({});

/** The suite's prompts; the one with arguments completes `arg1` from a fixed list. */
export const FIXTURE_PROMPTS: ReadonlyArray<PromptDef> = [
  definePrompt({ name: 'test_simple_prompt', title: 'Simple prompt', description: 'A prompt without arguments', scopes: [], args: noArgs, run: async () => composed('This is a simple prompt for testing.') }),
  definePrompt({
    name: 'test_prompt_with_arguments', title: 'Prompt with arguments', description: 'A prompt that repeats its two arguments', scopes: [],
    args: z.object({ arg1: z.string().describe('First test argument'), arg2: z.string().describe('Second test argument') }),
    run: async ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
    complete: (argument, value) => (argument === 'arg1' ? ['paris', 'park', 'party', 'test', 'testValue1'].filter((v) => v.startsWith(value)) : []),
  }),
  definePrompt({
    name: 'test_prompt_with_embedded_resource', title: 'Prompt with a resource', description: 'A prompt that embeds the resource it names', scopes: [],
    args: z.object({ resourceUri: z.string().describe('URI of the resource to embed') }),
    run: async ({ resourceUri }) => [
      { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: composed('Embedded resource content for testing.') } } },
      { role: 'user', content: { type: 'text', text: composed('Please process the embedded resource above.') } },
    ],
  }),
  definePrompt({
    name: 'test_prompt_with_image', title: 'Prompt with an image', description: 'A prompt with an image', scopes: [], args: noArgs,
    run: async () => [
      { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: composed('Please analyze the image above.') } },
    ],
  }),
  definePrompt({
    name: 'test_input_required_result_prompt', title: 'Prompt asking for context', description: 'A prompt that asks the user for context first', scopes: [],
    args: noArgs, run: async (_args, _ctx, req) => contextPrompt(req),
  }),
];
