import type { HttpClient, RequestOptions } from '../http.js';
import type { Page } from '../responses.js';
import type { ListMeetingsParams, Meeting, MeetingFolder, MeetingWithSummary, Task, TaskFromAgreementInput, Transcript } from '../types.js';

/** Recorded meetings, their summaries and transcripts (`meetings:read`). */
export class Meetings {
  constructor(private readonly http: HttpClient) {}

  /** The meeting folders available to the key's user (one page holds them all). */
  async folders(opts?: RequestOptions): Promise<Page<MeetingFolder>> {
    return this.http.call('getMeetingFolders', {}, opts);
  }

  /** One page of meetings, newest first; `folderId: 'personal'` for personal meetings. */
  async list(params: ListMeetingsParams = {}, opts?: RequestOptions): Promise<Page<Meeting>> {
    return this.http.call('getMeetings', { query: params }, opts);
  }

  iterate(params: ListMeetingsParams = {}, opts?: RequestOptions): AsyncGenerator<Meeting, void, undefined> {
    return this.http.items('getMeetings', { query: params }, opts);
  }

  pages(params: ListMeetingsParams = {}, opts?: RequestOptions): AsyncGenerator<Page<Meeting>, void, undefined> {
    return this.http.pages('getMeetings', { query: params }, opts);
  }

  /** A meeting with its summary (null until generated). */
  async get(id: string, opts?: RequestOptions): Promise<MeetingWithSummary> {
    return (await this.http.call('getMeetingsById', { params: { id } }, opts)).data;
  }

  /**
   * Creates the task of an agreement (`summary.actionItems[index]`, 0-based) and records it there; the body is that of
   * a task create, all optional. A second task from the same agreement is ApiError 422 `rejected` naming the first.
   */
  async createTaskFromAgreement(id: string, index: number, body: TaskFromAgreementInput = {}, opts?: RequestOptions): Promise<Task> {
    return (await this.http.call('postMeetingsByIdActionItemsByIndexTask', { params: { id, index: String(index) }, body }, opts)).data;
  }

  /** The transcript as replicas in order. */
  async transcript(id: string, opts?: RequestOptions): Promise<Transcript> {
    return (await this.http.call('getMeetingsByIdTranscript', { params: { id } }, opts)).data;
  }

  /** The transcript as text, one line per replica: `[hh:mm:ss] speaker: text`. */
  async transcriptText(id: string, opts?: RequestOptions): Promise<string> {
    return this.http.text('getMeetingsByIdTranscript', { params: { id }, query: { format: 'text' } }, opts);
  }
}
