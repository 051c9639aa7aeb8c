import type { HttpClient, RequestOptions } from '../http.js';
import type { Page } from '../responses.js';
import type { ActivityEntry, ActivityParams } from '../types.js';

/**
 * The workspace's activity (`tasks:read`): who changed what, when, and through which channel, key or agent.
 * A task's own history is `client.tasks.activity(ref)`.
 */
export class Activity {
  constructor(private readonly http: HttpClient) {}

  /** One page of entries, newest first. `since`/`until` without an offset are read in the workspace's time zone. */
  async list(params: ActivityParams = {}, opts?: RequestOptions): Promise<Page<ActivityEntry>> {
    return this.http.call('getActivity', { query: params }, opts);
  }

  /** Every matching entry, newest first: `for await (const e of client.activity.iterate({ since: '2026-11-23', projectId: 'WEB' }))`. */
  iterate(params: ActivityParams = {}, opts?: RequestOptions): AsyncGenerator<ActivityEntry, void, undefined> {
    return this.http.items('getActivity', { query: params }, opts);
  }

  pages(params: ActivityParams = {}, opts?: RequestOptions): AsyncGenerator<Page<ActivityEntry>, void, undefined> {
    return this.http.pages('getActivity', { query: params }, opts);
  }
}
