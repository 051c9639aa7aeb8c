import { tagged, withIfMatch, type ConditionalOptions, type Tagged } from '../conditional.js';
import type { HttpClient, RequestOptions } from '../http.js';
import type { Page } from '../responses.js';
import type {
  AddStatusInput, Board, CreateBoardInput, CreateProjectInput, ListBoardsParams, PageParams, Project, ProjectWithBoards, UpdateProjectInput,
} from '../types.js';

/** Projects visible to the key. */
export class Projects {
  constructor(private readonly http: HttpClient) {}

  /** One page of projects (without boards). */
  async list(params: PageParams = {}, opts?: RequestOptions): Promise<Page<Project>> {
    return this.http.call('getProjects', { query: params }, opts);
  }

  iterate(params: PageParams = {}, opts?: RequestOptions): AsyncGenerator<Project, void, undefined> {
    return this.http.items('getProjects', { query: params }, opts);
  }

  pages(params: PageParams = {}, opts?: RequestOptions): AsyncGenerator<Page<Project>, void, undefined> {
    return this.http.pages('getProjects', { query: params }, opts);
  }

  /** A project with its boards and their columns. */
  async get(id: string, opts?: RequestOptions): Promise<ProjectWithBoards> {
    return (await this.http.call('getProjectsById', { params: { id } }, opts)).data;
  }

  /** A project with its boards and its ETag (new boards and columns change it), for a later `update` with `{ ifMatch }`. */
  async getWithEtag(id: string, opts?: RequestOptions): Promise<Tagged<ProjectWithBoards>> {
    return tagged(await this.http.callTagged('getProjectsById', { params: { id } }, opts), `GET /v1/projects/${id}`);
  }

  /** Creates a project, with a board from `template` (default `simple`; null = no board). Needs `projects:write`. */
  async create(input: CreateProjectInput, opts?: RequestOptions): Promise<ProjectWithBoards> {
    return (await this.http.call('postProjects', { body: input }, opts)).data;
  }

  /** Renames or re-describes a project. Needs `projects:write`. With `ifMatch`, only if the project still has that ETag. */
  async update(id: string, input: UpdateProjectInput, opts?: ConditionalOptions): Promise<Project> {
    return (await this.http.call('patchProjectsById', { params: { id }, body: input }, withIfMatch(opts))).data;
  }
}

/** Boards and their columns. */
export class Boards {
  constructor(private readonly http: HttpClient) {}

  /** One page of boards, optionally of one project. */
  async list(params: ListBoardsParams = {}, opts?: RequestOptions): Promise<Page<Board>> {
    return this.http.call('getBoards', { query: params }, opts);
  }

  iterate(params: ListBoardsParams = {}, opts?: RequestOptions): AsyncGenerator<Board, void, undefined> {
    return this.http.items('getBoards', { query: params }, opts);
  }

  pages(params: ListBoardsParams = {}, opts?: RequestOptions): AsyncGenerator<Page<Board>, void, undefined> {
    return this.http.pages('getBoards', { query: params }, opts);
  }

  /** A board with its columns in order. */
  async get(id: string, opts?: RequestOptions): Promise<Board> {
    return (await this.http.call('getBoardsById', { params: { id } }, opts)).data;
  }

  /** Creates a board from a template. Needs `projects:write`. */
  async create(input: CreateBoardInput, opts?: RequestOptions): Promise<Board> {
    return (await this.http.call('postBoards', { body: input }, opts)).data;
  }

  /** Adds a column at the end of the board and returns the whole board. Needs `projects:write`. */
  async addStatus(id: string, input: AddStatusInput, opts?: RequestOptions): Promise<Board> {
    return (await this.http.call('postBoardsByIdStatuses', { params: { id }, body: input }, opts)).data;
  }
}
