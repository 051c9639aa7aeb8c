import type { McpServer } from '@modelcontextprotocol/server';
import type { Profile } from '../tool.js';
import { meetingToTasks } from './meetings.js';
import { standup } from './people.js';
import { type PromptDef, registerPromptDefs } from './prompt.js';
import { weeklyReport } from './projects.js';
import { briefTask, triageProject } from './tasks.js';

/** Every prompt, in the order prompts/list shows them. */
export const PROMPTS: ReadonlyArray<PromptDef> = [briefTask, triageProject, standup, meetingToTasks, weeklyReport] as ReadonlyArray<PromptDef>;

/**
 * Registers the prompts the key's rights and the session's toolsets allow (both eras: prompts are plain requests).
 * Their arguments complete (completion/complete) through prompts/args.ts. `extra`: more prompts (the conformance fixtures).
 */
export function registerPrompts(server: McpServer, profile: Profile, extra: ReadonlyArray<PromptDef> = []): string[] {
  return registerPromptDefs(server, extra.length ? [...PROMPTS, ...extra] : PROMPTS, profile);
}
