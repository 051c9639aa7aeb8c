import { z } from 'zod';
import { Day, docs, meetings, people, projects, tasks, today } from '@tt/domain';
import type { ToolContext } from '../tool.js';

/*
 * Prompt arguments with their completions (completion/complete), and the completions of the resource templates'
 * variables. Every value comes from a domain use case run as the key, so a key is offered only what it can see; a
 * failing lookup offers nothing rather than failing the client's typing.
 */

type Complete = (value: string) => Promise<string[]>;
const safe = (ctx: ToolContext, what: string, fn: Complete): Complete => async (value) => {
  try {
    return (await fn(String(value ?? ''))).slice(0, 100);
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message, what }, 'completion failed');
    return [];
  }
};

/** Completers by what they complete; the same ones serve prompt arguments and resource template variables. */
export function completers(ctx: ToolContext) {
  const { actor, deps } = ctx;
  return {
    task: safe(ctx, 'task', (v) => tasks.completeTaskKeys(actor, v, deps)),
    project: safe(ctx, 'project', (v) => projects.completeProjectKeys(actor, v, deps)),
    person: safe(ctx, 'person', (v) => people.completeLogins(actor, v, deps)),
    meeting: safe(ctx, 'meeting', (v) => meetings.completeMeetings(actor, v, deps)),
    doc: safe(ctx, 'doc', (v) => docs.completeDocIds(actor, v, deps)),
    /** Days people report on: today, yesterday, this week's and last week's Monday, the 1st of this month. */
    day: safe(ctx, 'day', async (v) => recentDays(today(actor.workspace.timezone, deps.now())).filter((d) => d.startsWith(v.trim()))),
  };
}

/** A few useful days counted back from `day` (YYYY-MM-DD), newest first, without repeats. */
export function recentDays(day: string): string[] {
  const base = new Date(`${day}T00:00:00Z`);
  const shift = (days: number) => new Date(base.getTime() + days * 86_400_000).toISOString().slice(0, 10);
  const monday = -((base.getUTCDay() + 6) % 7);
  return [...new Set([day, shift(-1), shift(monday), shift(monday - 7), `${day.slice(0, 8)}01`, shift(-7), shift(-14), shift(-30)])];
}

/**
 * The argument schemas, built once per process (zod objects cost more to build than the rest of a request's server);
 * names as the design card fixes them. Their completions are answered by `completeArgument`, with the request's key.
 */
export const ARGS = {
  task: z.string().min(1).max(40).describe('Task key, e.g. WEB-12'),
  project: z.string().min(1).max(40).describe('Project key, e.g. WEB'),
  person: z.string().min(1).max(100).describe('Login of the person; me = the key\'s user'),
  meeting: z.string().min(1).max(100).describe('Meeting id (list_meetings finds them)'),
  from: Day.describe('First day, YYYY-MM-DD'),
  to: Day.describe('Last day, YYYY-MM-DD'),
};

/** What completes each prompt argument and resource template variable. */
const BY_ARGUMENT: Record<string, keyof ReturnType<typeof completers>> = { task: 'task', project: 'project', person: 'person', meeting: 'meeting', from: 'day', to: 'day' };
const BY_TEMPLATE: Record<string, { variable: string; kind: keyof ReturnType<typeof completers> }> = {
  'task://{key}': { variable: 'key', kind: 'task' },
  'doc://{id}': { variable: 'id', kind: 'doc' },
};

/** The values for one argument of a prompt or one variable of a resource template (empty for any other name). */
export function completeArgument(ctx: ToolContext, ref: { type: 'prompt' | 'template'; name: string }, argument: string, value: string): Promise<string[]> {
  const kind = ref.type === 'prompt' ? BY_ARGUMENT[argument] : BY_TEMPLATE[ref.name]?.variable === argument ? BY_TEMPLATE[ref.name]!.kind : undefined;
  return kind ? completers(ctx)[kind](value) : Promise.resolve([]);
}

/** Whether `uri` is one of our resource templates. */
export const isTemplate = (uri: string): boolean => Object.prototype.hasOwnProperty.call(BY_TEMPLATE, uri);

/** The variable of one of our resource templates. */
export const templateVariable = (uri: string): string | undefined => (isTemplate(uri) ? BY_TEMPLATE[uri]!.variable : undefined);
