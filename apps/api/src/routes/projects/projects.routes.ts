import {
  AddStatusInput, Board, CreateBoardInput, CreateProjectInput, envelope, Id, paged, PageQuery, Project, ProjectWithBoards, projects,
  UpdateProjectInput, z,
} from '@tt/domain';
import { actorOf, type Routes } from '../../http/route.js';
import { conditionalWrite, ifMatch, tagged, taggedRead } from '../../http/etag.js';

const idParam = z.strictObject({ id: Id });

export function projectRoutes(r: Routes): void {
  r.add({
    method: 'get', path: '/projects', tag: 'Projects', summary: 'Projects visible to the key (without boards)',
    query: z.strictObject(PageQuery),
    response: paged(Project, 'ProjectPage'),
    handler: ({ req, query, deps }) => projects.listProjects(actorOf(req), query, deps),
  });
  r.add({
    method: 'post', path: '/projects', tag: 'Projects', summary: 'Create a project, with a board from a template',
    scope: 'projects:write', status: 201, body: CreateProjectInput,
    response: envelope(ProjectWithBoards, 'ProjectWithBoardsResponse'), conditional: 'create',
    handler: async ({ req, res, body, deps }) => tagged(res, await projects.createProjectVersioned(actorOf(req), body, deps)),
  });
  r.add({
    method: 'get', path: '/projects/:id', tag: 'Projects', summary: 'A project with its boards', params: idParam,
    response: envelope(ProjectWithBoards, 'ProjectWithBoardsResponse'), conditional: 'read',
    handler: async ({ req, res, params, deps }) => taggedRead(req, res, await projects.getProjectVersioned(actorOf(req), params.id, deps)),
  });
  r.add({
    method: 'patch', path: '/projects/:id', tag: 'Projects', summary: 'Rename or describe a project', params: idParam,
    scope: 'projects:write', body: UpdateProjectInput,
    response: envelope(Project, 'ProjectResponse'), conditional: 'write',
    handler: async ({ req, res, params, body, deps }) =>
      tagged(res, await conditionalWrite(res, () => projects.updateProjectVersioned(actorOf(req), params.id, body, deps, ifMatch(req)))),
  });
  r.add({
    method: 'get', path: '/boards', tag: 'Boards', summary: 'Boards visible to the key',
    query: z.strictObject({ projectId: Id.optional(), ...PageQuery }),
    response: paged(Board, 'BoardPage'),
    handler: ({ req, query, deps }) => projects.listBoards(actorOf(req), query, deps),
  });
  r.add({
    method: 'post', path: '/boards', tag: 'Boards', summary: 'Create a board from a template',
    scope: 'projects:write', status: 201, body: CreateBoardInput,
    response: envelope(Board, 'BoardResponse'),
    handler: async ({ req, body, deps }) => ({ data: await projects.createBoard(actorOf(req), body, deps) }),
  });
  r.add({
    method: 'get', path: '/boards/:id', tag: 'Boards', summary: 'A board with its columns in order', params: idParam,
    response: envelope(Board, 'BoardResponse'),
    handler: async ({ req, params, deps }) => ({ data: await projects.getBoard(actorOf(req), params.id, deps) }),
  });
  r.add({
    method: 'post', path: '/boards/:id/statuses', tag: 'Boards', summary: 'Add a column at the end of a board',
    description: 'The column category defaults to `progress`.',
    scope: 'projects:write', status: 201, params: idParam, body: AddStatusInput,
    response: envelope(Board, 'BoardResponse'),
    handler: async ({ req, params, body, deps }) => ({ data: await projects.addStatus(actorOf(req), params.id, body, deps) }),
  });
}
