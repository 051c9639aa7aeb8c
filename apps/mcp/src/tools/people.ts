import { z } from 'zod';
import { people, SCOPES, today } from '@tt/domain';
import { answer, done, orNull } from '../answer/answer.js';
import { FULL_SESSION } from '../edge/session.js';
import { defineTool, pageNote } from '../tool.js';
import { fenceInline, fenceLines, fenceTable, plain } from '../answer/untrusted.js';

import { cursor, format, FormatOut, READ } from './args.js';

export const whoami = defineTool({
  name: 'whoami',
  title: 'Who am I',
  description: "Who you act as, today's date and time zone, and the key's rights.",
  input: z.strictObject({}),
  output: z.object({
    user: z.object({ id: z.string(), login: z.string() }),
    key: z.object({ scopes: z.array(z.string()) }),
    today: z.string(),
    timezone: z.string(),
  }),
  annotations: READ,
  async run(_args, { actor, deps, session = FULL_SESSION }) {
    const me = people.me(actor, deps);
    const day = today(actor.workspace.timezone, deps.now());
    const missing = SCOPES.filter((s) => !me.key.scopes.includes(s));
    const text = [
      `You act as @${plain(me.user.login)} (id ${me.user.id})${me.user.isAdmin ? ', company admin' : ''}, of company ${me.workspace.id}.`,
      fenceLines('names', [`Name: ${me.user.name}`, `Job title: ${me.user.role || 'none'}`, `Company: ${me.workspace.name}`], { id: me.user.id }),
      `- Today: ${day} in the workspace time zone ${actor.workspace.timezone}`,
      `- Session: ${session.readOnly ? 'read-only' : 'read and write'}; toolsets: ${session.toolsets ? session.toolsets.join(', ') : 'all'}`,
      `- Key: ${me.key.id}; rights: ${me.key.scopes.length ? me.key.scopes.join(', ') : 'none (read projects and users only)'}`,
      `- Rights not granted: ${missing.length ? missing.join(', ') : 'none'}`,
      `- Projects: ${me.key.projectIds === null ? 'all' : me.key.projectIds.join(', ')}`,
      `- Request limit: ${me.rateLimitPerMinute} per minute (shared with the REST API)`,
    ].join('\n');
    return done(text, {
      user: { id: me.user.id, name: me.user.name, login: me.user.login, role: me.user.role, isAdmin: me.user.isAdmin },
      company: me.workspace,
      key: me.key,
      rateLimitPerMinute: me.rateLimitPerMinute,
      today: day,
      timezone: actor.workspace.timezone,
      session: { readOnly: session.readOnly, toolsets: session.toolsets },
    });
  },
});

export const listUsers = defineTool({
  name: 'list_users',
  title: 'List users',
  toolset: 'people',
  description: 'Company members with login, id and job title.',
  input: z.strictObject({
    query: z.string().trim().min(1).max(200).optional().describe('Name, login or job title'),
    limit: z.number().int().min(1).max(100).default(50),
    cursor: cursor(1000),
    format,
  }),
  output: z.object({ format: FormatOut, users: z.array(z.object({ id: z.string(), login: z.string() })), total: z.number(), nextCursor: orNull(z.string()) }),
  annotations: READ,
  async run(args, { actor, deps }) {
    const page = await people.listUsers(actor, { q: args.query, limit: args.limit, cursor: args.cursor }, deps);
    const users = page.data.map((u) => ({ id: u.id, name: u.name, login: u.login, role: u.role, isAdmin: u.isAdmin }));
    // One table in one block: names and job titles are person-written, and a page of 100 costs one fence.
    const table = fenceTable(['Name', 'Login', 'Job title', 'Admin', 'Id'], users.map((u) => [u.name, `@${u.login}`, u.role, u.isAdmin ? 'admin' : '', u.id]));
    const lines = ['Users:', table, '', pageNote(users.length, page.total, 'user', page.nextCursor)];
    const data = { format: args.format, users, total: page.total, nextCursor: page.nextCursor };
    return answer(args.format, () => (users.length ? lines.join('\n') : args.query ? `No users match ${fenceInline('name', args.query)}.` : 'No users.'), data, data);
  },
});
