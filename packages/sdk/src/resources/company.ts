import type { HttpClient, RequestOptions } from '../http.js';
import type { Page } from '../responses.js';
import type { PageParams, Team, User, ListUsersParams } from '../types.js';

/** Members of the workspace. */
export class Users {
  constructor(private readonly http: HttpClient) {}

  /** One page of users; `q` searches name, login and job title. */
  async list(params: ListUsersParams = {}, opts?: RequestOptions): Promise<Page<User>> {
    return this.http.call('getUsers', { query: params }, opts);
  }

  /** Every matching user, page after page. */
  iterate(params: ListUsersParams = {}, opts?: RequestOptions): AsyncGenerator<User, void, undefined> {
    return this.http.items('getUsers', { query: params }, opts);
  }

  pages(params: ListUsersParams = {}, opts?: RequestOptions): AsyncGenerator<Page<User>, void, undefined> {
    return this.http.pages('getUsers', { query: params }, opts);
  }
}

/** Teams of the workspace. */
export class Teams {
  constructor(private readonly http: HttpClient) {}

  async list(params: PageParams = {}, opts?: RequestOptions): Promise<Page<Team>> {
    return this.http.call('getTeams', { query: params }, opts);
  }

  iterate(params: PageParams = {}, opts?: RequestOptions): AsyncGenerator<Team, void, undefined> {
    return this.http.items('getTeams', { query: params }, opts);
  }

  pages(params: PageParams = {}, opts?: RequestOptions): AsyncGenerator<Page<Team>, void, undefined> {
    return this.http.pages('getTeams', { query: params }, opts);
  }
}

/** Labels in use in the workspace. */
export class Labels {
  constructor(private readonly http: HttpClient) {}

  /** Every label, as strings. */
  async list(opts?: RequestOptions): Promise<string[]> {
    return (await this.http.call('getLabels', {}, opts)).data;
  }
}
