import {
  CreateDocInput, Doc, DocFormatQuery, docs, DocSpace, DocSummary, envelope, Id, ListDocsQuery, paged, UpdateDocInput, z,
} from '@tt/domain';
import { actorOf, type Routes } from '../../http/route.js';
import { conditionalWrite, ifMatch, tagged, taggedRead } from '../../http/etag.js';

const idParam = z.strictObject({ id: Id });
const DocResponse = envelope(Doc, 'DocResponse');

export function docRoutes(r: Routes): void {
  r.add({
    method: 'get', path: '/doc-spaces', tag: 'Documents', summary: 'Documentation spaces the key user may read',
    scope: 'docs:read', response: paged(DocSpace, 'DocSpacePage'),
    handler: ({ req, deps }) => docs.listSpaces(actorOf(req), deps),
  });
  r.add({
    method: 'get', path: '/docs', tag: 'Documents', summary: 'Pages in tree order, without content',
    description: 'Depth first, children after their parent, siblings in creation order.',
    scope: 'docs:read', query: ListDocsQuery, response: paged(DocSummary, 'DocPage'),
    handler: ({ req, query, deps }) => docs.listDocs(actorOf(req), query, deps),
  });
  r.add({
    method: 'post', path: '/docs', tag: 'Documents', summary: 'Create a page',
    description: 'HTML `content` is sanitized; plain `text` may be sent instead. `taskIds` links the page to tasks (ids or keys).',
    scope: 'docs:write', status: 201, body: CreateDocInput, response: DocResponse, conditional: 'create',
    handler: async ({ req, res, body, deps }) => tagged(res, await docs.createDocVersioned(actorOf(req), body, deps)),
  });
  r.add({
    method: 'get', path: '/docs/:id', tag: 'Documents', summary: 'A page, full form (or Markdown with format=markdown)',
    scope: 'docs:read', params: idParam, query: DocFormatQuery, response: DocResponse, alternates: { 'text/markdown': 'Markdown' },
    conditional: 'read',
    handler: async ({ req, res, params, query, deps }) => {
      const page = taggedRead(req, res, await docs.getDocVersioned(actorOf(req), params.id, deps));
      if (page === undefined || query.format === 'json') return page;
      res.status(200).type('text/markdown; charset=utf-8').send(docs.pageMarkdown(page.data));
      return undefined;
    },
  });
  r.add({
    method: 'patch', path: '/docs/:id', tag: 'Documents', summary: 'Change a page: title and/or the whole content',
    description:
      'The content is replaced in full. The previous text is kept in the version history (at most one version an hour) ' +
      'and every change is written to the page log. `taskIds` replaces the linked tasks.',
    scope: 'docs:write', params: idParam, body: UpdateDocInput, response: DocResponse, conditional: 'write',
    handler: async ({ req, res, params, body, deps }) =>
      tagged(res, await conditionalWrite(res, () => docs.updateDocVersioned(actorOf(req), params.id, body, deps, ifMatch(req)))),
  });
}
