import type { HttpClient, RequestOptions } from '../http.js';
import type { Page } from '../responses.js';
import type { TimeEntriesParams, TimeLog, TimeReport, TimeReportParams } from '../types.js';

/** Time entries and reports (`time:read`); time is logged with `client.tasks.logTime`. */
export class Time {
  constructor(private readonly http: HttpClient) {}

  /** One page of time entries, newest first. */
  async entries(params: TimeEntriesParams = {}, opts?: RequestOptions): Promise<Page<TimeLog>> {
    return this.http.call('getTimeEntries', { query: params }, opts);
  }

  /** Every matching time entry, newest first. */
  iterateEntries(params: TimeEntriesParams = {}, opts?: RequestOptions): AsyncGenerator<TimeLog, void, undefined> {
    return this.http.items('getTimeEntries', { query: params }, opts);
  }

  entryPages(params: TimeEntriesParams = {}, opts?: RequestOptions): AsyncGenerator<Page<TimeLog>, void, undefined> {
    return this.http.pages('getTimeEntries', { query: params }, opts);
  }

  /** Sums for a period (default this month), grouped by up to three of user, task, project, day. */
  async report(params: TimeReportParams = {}, opts?: RequestOptions): Promise<TimeReport> {
    return this.http.call('getTimeReport', { query: params }, opts);
  }
}
