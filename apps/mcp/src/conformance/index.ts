import type { McpServer } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { Era } from '../server.js';
import type { ToolAnswer, ToolDef } from '../tool.js';
import { ASK_TOOLS } from './ask.js';
import { CONTENT_TOOLS, SCHEMA_TOOLS } from './content.js';
import { INPUT_TOOLS } from './input-required.js';
import { registerFixtureResources } from './resources-prompts.js';
import { TASK_TOOLS } from './tasks.js';

export { FIXTURE_PROMPTS } from './resources-prompts.js';

/*
 * The official MCP conformance suite's fixtures, served only when MCP_CONFORMANCE_FIXTURES is on (test only, never in
 * production). They are registered on the same servers as the task tracker's tools, prompts and resources, so the
 * suite exercises the real protocol paths: the edge, both eras, the answer gate and the error mapping.
 */

/**
 * The fixture tools of an era: the multi-round-trip and the tasks ones are 2026-07-28's (2025 clients have no
 * input_required, and the tasks extension is offered on 2026-07-28 only), the ones that ask the client mid-call
 * (sampling, elicitation) 2025's (2026-07-28 has no server-to-client requests).
 */
export const fixtureTools = (era: Era): ReadonlyArray<ToolDef<z.ZodObject, ToolAnswer>> =>
  (era === 'modern' ? [...CONTENT_TOOLS, ...SCHEMA_TOOLS, ...INPUT_TOOLS, ...TASK_TOOLS] : [...CONTENT_TOOLS, ...SCHEMA_TOOLS, ...ASK_TOOLS]) as ReadonlyArray<ToolDef<z.ZodObject, ToolAnswer>>;

/**
 * Resources, and on 2025-11-25 logging: logging/setLevel is accepted and the log messages of test_tool_with_logging go
 * out on that call's response stream. The level is not kept (no session to keep it on): every level is sent.
 */
export function registerFixtures(server: McpServer, era: Era): void {
  registerFixtureResources(server);
  if (era === 'legacy') {
    server.server.registerCapabilities({ logging: {} });
    server.server.setRequestHandler('logging/setLevel', () => ({}));
  }
}
