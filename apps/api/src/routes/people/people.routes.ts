import { envelope, KeyInfo, paged, PageQuery, people, Team, User, z } from '@tt/domain';
import { actorOf, type Routes } from '../../http/route.js';

export function peopleRoutes(r: Routes): void {
  r.add({
    method: 'get', path: '/me', tag: 'Company', summary: 'The key, its user and workspace',
    response: envelope(KeyInfo, 'KeyInfoResponse'),
    handler: async ({ req, deps }) => ({ data: people.me(actorOf(req), deps) }),
  });
  r.add({
    method: 'get', path: '/users', tag: 'Company', summary: 'Members of the workspace',
    query: z.strictObject({ q: z.string().trim().max(200).optional().openapi({ description: 'Search by name, login, job title' }), ...PageQuery }),
    response: paged(User, 'UserPage'),
    handler: ({ req, query, deps }) => people.listUsers(actorOf(req), query, deps),
  });
  r.add({
    method: 'get', path: '/teams', tag: 'Company', summary: 'Teams of the workspace',
    query: z.strictObject(PageQuery),
    response: paged(Team, 'TeamPage'),
    handler: ({ req, query, deps }) => people.listTeams(actorOf(req), query, deps),
  });
  r.add({
    method: 'get', path: '/labels', tag: 'Company', summary: 'All labels, as strings',
    response: envelope(z.array(z.string()), 'LabelList'),
    handler: async ({ req, deps }) => ({ data: await people.listLabels(actorOf(req), deps) }),
  });
}
