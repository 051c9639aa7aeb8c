import { HttpClient, type ClientOptions, type RequestOptions } from './http.js';
import type { RateLimitInfo } from './errors.js';
import { Activity } from './resources/activity.js';
import { Labels, Teams, Users } from './resources/company.js';
import { Docs } from './resources/docs.js';
import { Meetings } from './resources/meetings.js';
import { Notifications } from './resources/notifications.js';
import { Boards, Projects } from './resources/projects.js';
import { Tasks } from './resources/tasks.js';
import { Time } from './resources/time.js';
import type { KeyInfo } from './types.js';

/**
 * Typed client of the task tracker's REST API (/v1). Works wherever `fetch` does: Node 20+, browsers, workers.
 *
 * ```ts
 * const client = new TaskTrackerClient({ baseUrl: 'https://tracker.example.com', apiKey: process.env.TT_API_KEY! });
 * for await (const task of client.tasks.iterate({ projectId, category: 'todo' })) console.log(task.key, task.title);
 * ```
 */
export class TaskTrackerClient {
  /** Low-level access: `http.call(operationId, {params, query, body})` for any operation of the manifest. */
  readonly http: HttpClient;
  readonly users: Users;
  readonly teams: Teams;
  readonly labels: Labels;
  readonly projects: Projects;
  readonly boards: Boards;
  readonly tasks: Tasks;
  readonly time: Time;
  readonly docs: Docs;
  readonly meetings: Meetings;
  readonly notifications: Notifications;
  readonly activity: Activity;

  constructor(options: ClientOptions) {
    this.http = new HttpClient(options);
    this.users = new Users(this.http);
    this.teams = new Teams(this.http);
    this.labels = new Labels(this.http);
    this.projects = new Projects(this.http);
    this.boards = new Boards(this.http);
    this.tasks = new Tasks(this.http);
    this.time = new Time(this.http);
    this.docs = new Docs(this.http);
    this.meetings = new Meetings(this.http);
    this.notifications = new Notifications(this.http);
    this.activity = new Activity(this.http);
  }

  /** The key, its user, workspace, rights and rate limit. */
  async me(opts?: RequestOptions): Promise<KeyInfo> {
    return (await this.http.call('getMe', {}, opts)).data;
  }

  /** Rate-limit state from the most recent answer (`x-ratelimit-*`), or null before the first call. */
  get lastRateLimit(): RateLimitInfo | null {
    return this.http.lastRateLimit;
  }
}
