import type { HttpClient, RequestOptions } from '../http.js';
import type { Page } from '../responses.js';
import type { ListNotificationsParams, MarkNotificationsReadInput, MarkReadResult, Notification } from '../types.js';

/** The inbox of the key's user. */
export class Notifications {
  constructor(private readonly http: HttpClient) {}

  /** One page of notifications, newest first; `unread: true` for unread only. */
  async list(params: ListNotificationsParams = {}, opts?: RequestOptions): Promise<Page<Notification>> {
    return this.http.call('getNotifications', { query: params }, opts);
  }

  iterate(params: ListNotificationsParams = {}, opts?: RequestOptions): AsyncGenerator<Notification, void, undefined> {
    return this.http.items('getNotifications', { query: params }, opts);
  }

  pages(params: ListNotificationsParams = {}, opts?: RequestOptions): AsyncGenerator<Page<Notification>, void, undefined> {
    return this.http.pages('getNotifications', { query: params }, opts);
  }

  /** Marks the named notifications read (`{ids}`), or all of them (`{all: true}`). */
  async markRead(input: MarkNotificationsReadInput, opts?: RequestOptions): Promise<MarkReadResult> {
    return (await this.http.call('postNotificationsRead', { body: input }, opts)).data;
  }
}
