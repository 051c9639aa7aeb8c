import { type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { composed } from '../answer/gate.js';
import { defineTool, ok, type CallToolResult, type ToolDef } from '../tool.js';

/*
 * The suite's content fixtures: tools whose answers are each one kind of content (text, image, audio, an embedded
 * resource, a mix, an error), tools that talk back while they run (progress, log messages), and the tools whose input
 * schemas carry keywords the suite looks for. Each answers exactly what the suite's scenario describes, through the
 * same tools/call path and answer gate as the task tracker's tools.
 */

/** A 1x1 red PNG and a minimal WAV, the smallest media the suite accepts. */
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;
const NONE = z.object({}).loose();

/** A fixture tool that takes no arguments and answers `content`. */
const fixed = (name: string, description: string, content: () => CallToolResult['content']): ToolDef<typeof NONE> =>
  defineTool({ name, title: name, description, input: NONE, annotations: READ, run: async () => ({ content: content() }) });

const text = (t: string) => ({ type: 'text' as const, text: composed(t) });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends a notification about the call being answered; it reaches the client on that call's own response stream. */
const notify = (req: ServerContext, method: string, params: Record<string, unknown>) => req.mcpReq.notify({ method, params });

export const CONTENT_TOOLS: ReadonlyArray<ToolDef<z.ZodObject>> = [
  fixed('test_simple_text', 'Answers one text', () => [text('This is a simple text response for testing.')]),
  fixed('test_image_content', 'Answers an image', () => [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }]),
  fixed('test_audio_content', 'Answers audio', () => [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }]),
  fixed('test_embedded_resource', 'Answers an embedded resource', () => [
    { type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: composed('This is an embedded resource content.') } },
  ]),
  fixed('test_multiple_content_types', 'Answers text, an image and a resource', () => [
    text('Multiple content types test:'),
    { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
    { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: composed('{"test":"data","value":123}') } },
  ]),
  defineTool({
    name: 'test_error_handling', title: 'test_error_handling', description: 'Answers a tool error', input: NONE, annotations: READ,
    run: async () => ({ isError: true, content: [text('This tool intentionally returns an error for testing')] }),
  }),
  defineTool({
    name: 'test_tool_with_progress', title: 'test_tool_with_progress', description: 'Reports progress three times', input: NONE, annotations: READ,
    run: async (_args, _ctx, req) => {
      const progressToken = req.mcpReq._meta?.progressToken;
      if (progressToken !== undefined) {
        for (const progress of [0, 50, 100]) {
          await notify(req, 'notifications/progress', { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` });
          if (progress < 100) await pause(50);
        }
      }
      return ok(String(progressToken ?? 'no progress token'));
    },
  }),
  defineTool({
    name: 'test_tool_with_logging', title: 'test_tool_with_logging', description: 'Logs three messages', input: NONE, annotations: READ,
    run: async (_args, _ctx, req) => {
      for (const data of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
        await notify(req, 'notifications/message', { level: 'info', logger: 'conformance', data });
        await pause(50);
      }
      return ok('Tool with logging executed successfully');
    },
  }),
];

/** JSON Schema 2020-12 keywords zod does not write ($defs with $anchor, composition, conditionals), listed as they are. */
const RICH_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

export const SCHEMA_TOOLS: ReadonlyArray<ToolDef<z.ZodObject>> = [
  defineTool({
    name: 'json_schema_2020_12_tool', title: 'json_schema_2020_12_tool', description: 'Lists an input schema with JSON Schema 2020-12 keywords',
    input: NONE, listedInput: RICH_SCHEMA, annotations: READ, run: async () => ok('ok'),
  }),
  defineTool({
    // SEP-2243: a value the client also sends as the Mcp-Param-Region header; the SDK compares the two before the call.
    name: 'test_custom_header', title: 'test_custom_header', description: 'Takes a region mirrored in the Mcp-Param-Region header',
    input: NONE,
    listedInput: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, query: { type: 'string' } } },
    annotations: READ,
    run: async (args) => ok(`region ${typeof args.region === 'string' ? args.region : 'none'}`),
  }),
];
