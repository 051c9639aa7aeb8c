import { completable } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { docs, meetings, people, projects, tasks, today } from '@tt/domain';
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

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The argument schemas, each completable; names as the design card fixes them. */
export function promptArgs(ctx: ToolContext) {
  const c = completers(ctx);
  return {
    task: completable(z.string().min(1).max(40).describe('Task key, e.g. WEB-12'), c.task),
    project: completable(z.string().min(1).max(40).describe('Project key, e.g. WEB'), c.project),
    person: completable(z.string().min(1).max(100).describe('Login of the person; me = the key\'s user'), c.person),
    meeting: completable(z.string().min(1).max(100).describe('Meeting id (list_meetings finds them)'), c.meeting),
    from: completable(z.string().regex(DAY, 'must be a day, YYYY-MM-DD').describe('First day, YYYY-MM-DD'), c.day),
    to: completable(z.string().regex(DAY, 'must be a day, YYYY-MM-DD').describe('Last day, YYYY-MM-DD'), c.day),
  };
}
