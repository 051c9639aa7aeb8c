import { company, envelope, KeyInfo, paged, PageQuery, Team, User, z, type Deps } from '@tt/domain';
import { actorOf, type Routes } from '../../http/route.js';

export function peopleRoutes(r: Routes, deps: Deps): void {
  r.add({
    method: 'get', path: '/me', tag: 'Company', summary: 'The key, its user and workspace',
    response: envelope(KeyInfo, 'KeyInfoResponse'),
    handler: async ({ req }) => ({ data: company.me(actorOf(req), deps) }),
  });
  r.add({
    method: 'get', path: '/users', tag: 'Company', summary: 'Members of the workspace',
    query: z.strictObject({ q: z.string().trim().max(200).optional().openapi({ description: 'Search by name, login, job title' }), ...PageQuery }),
    response: paged(User, 'UserPage'),
    handler: ({ req, query }) => company.listUsers(actorOf(req), query, deps),
  });
  r.add({
    method: 'get', path: '/teams', tag: 'Company', summary: 'Teams of the workspace',
    query: z.strictObject(PageQuery),
    response: paged(Team, 'TeamPage'),
    handler: ({ req, query }) => company.listTeams(actorOf(req), query, deps),
  });
  r.add({
    method: 'get', path: '/labels', tag: 'Company', summary: 'All labels, as strings',
    response: envelope(z.array(z.string()), 'LabelList'),
    handler: async ({ req }) => ({ data: await company.listLabels(actorOf(req), deps) }),
  });
}
