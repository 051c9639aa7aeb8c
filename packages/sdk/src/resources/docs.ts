import { tagged, withIfMatch, type ConditionalOptions, type Tagged } from '../conditional.js';
import type { HttpClient, RequestOptions } from '../http.js';
import type { Page } from '../responses.js';
import type { CreateDocInput, Doc, DocSpace, DocSummary, ListDocsParams, UpdateDocInput } from '../types.js';

/** Documentation spaces and pages readable by the key's user. */
export class Docs {
  constructor(private readonly http: HttpClient) {}

  /** The documentation spaces the key's user may read (one page holds them all). */
  async spaces(opts?: RequestOptions): Promise<Page<DocSpace>> {
    return this.http.call('getDocSpaces', {}, opts);
  }

  /** One page of page summaries in tree order, without content. */
  async list(params: ListDocsParams = {}, opts?: RequestOptions): Promise<Page<DocSummary>> {
    return this.http.call('getDocs', { query: params }, opts);
  }

  iterate(params: ListDocsParams = {}, opts?: RequestOptions): AsyncGenerator<DocSummary, void, undefined> {
    return this.http.items('getDocs', { query: params }, opts);
  }

  pages(params: ListDocsParams = {}, opts?: RequestOptions): AsyncGenerator<Page<DocSummary>, void, undefined> {
    return this.http.pages('getDocs', { query: params }, opts);
  }

  /** A page in full form (HTML content and plain text). */
  async get(id: string, opts?: RequestOptions): Promise<Doc> {
    return (await this.http.call('getDocsById', { params: { id } }, opts)).data;
  }

  /** A page in full form with its ETag, for a later `update` with `{ ifMatch: etag }`. */
  async getWithEtag(id: string, opts?: RequestOptions): Promise<Tagged<Doc>> {
    return tagged(await this.http.callTagged('getDocsById', { params: { id } }, opts), `GET /v1/docs/${id}`);
  }

  /** A page as plain Markdown text. */
  async getMarkdown(id: string, opts?: RequestOptions): Promise<string> {
    return this.http.text('getDocsById', { params: { id }, query: { format: 'markdown' } }, opts);
  }

  /** Creates a page; `content` is HTML (sanitized) or `text` plain text. Needs `docs:write`. */
  async create(input: CreateDocInput, opts?: RequestOptions): Promise<Doc> {
    return (await this.http.call('postDocs', { body: input }, opts)).data;
  }

  /**
   * Replaces the title and/or the whole content; the old text goes to version history. Needs `docs:write`. With
   * `ifMatch`, only if the page still has that ETag (else 412 `precondition_failed`).
   */
  async update(id: string, input: UpdateDocInput, opts?: ConditionalOptions): Promise<Doc> {
    return (await this.http.call('patchDocsById', { params: { id }, body: input }, withIfMatch(opts))).data;
  }
}
