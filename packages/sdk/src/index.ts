import type { KeyInfo, Page, Project, ProjectWithBoards, Task, TaskSummary } from '@tt/domain';

/** An error answer of the API, carrying the spec's code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
}

/** A small typed client of the REST API; it grows with the endpoints. */
export class TaskTrackerClient {
  constructor(private readonly o: ClientOptions) {}

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await (this.o.fetch ?? fetch)(`${this.o.baseUrl.replace(/\/$/, '')}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.o.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status === 204) return undefined as T;
    const json = (await res.json()) as { error?: { code: string; message: string } };
    if (!res.ok) throw new ApiError(res.status, json.error?.code ?? 'internal', json.error?.message ?? res.statusText);
    return json as T;
  }

  me = async (): Promise<KeyInfo> => (await this.request<{ data: KeyInfo }>('GET', '/me')).data;
  listProjects = (): Promise<Page<Project>> => this.request('GET', '/projects');
  getProject = async (id: string): Promise<ProjectWithBoards> => (await this.request<{ data: ProjectWithBoards }>('GET', `/projects/${encodeURIComponent(id)}`)).data;
  listTasks = (query: Record<string, string> = {}): Promise<Page<TaskSummary>> => this.request('GET', `/tasks?${new URLSearchParams(query)}`);
  getTask = async (ref: string): Promise<Task> => (await this.request<{ data: Task }>('GET', `/tasks/${encodeURIComponent(ref)}`)).data;
  createTask = async (input: Record<string, unknown>): Promise<Task> => (await this.request<{ data: Task }>('POST', '/tasks', input)).data;
}
