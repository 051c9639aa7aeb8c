/**
 * The operations manifest: one entry per REST operation of /v1, keyed by the OpenAPI operationId.
 * The client's methods are built on it, and a contract test compares it with the OpenAPI document the
 * API serves (method, path, success status, schema names of the body and the answer, query names,
 * alternative media types), so the SDK and the server cannot drift apart unnoticed.
 */
/** What the transport needs to send a request. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Path from the server root, `{name}` for path parameters. */
  path: string;
  /** Success status. */
  status: 200 | 201 | 204;
}

/** A REST operation as the OpenAPI document describes it. */
export interface OperationSpec extends RequestSpec {
  /** Component schema name of the JSON success body; null when there is none (204). */
  response: string | null;
  /** Component schema name of the JSON request body; null when the operation takes none. */
  body: string | null;
  /** Query parameter names the operation accepts. */
  query: readonly string[];
  /** Media type of a text form of the answer (e.g. `text/markdown`), chosen with the `format` query. */
  text?: string;
}

const PAGE = ['limit', 'cursor'] as const;
const op = <const T extends OperationSpec>(spec: T): T => spec;

export const operations = {
  // Company
  getMe: op({ method: 'GET', path: '/v1/me', status: 200, response: 'KeyInfoResponse', body: null, query: [] }),
  getUsers: op({ method: 'GET', path: '/v1/users', status: 200, response: 'UserPage', body: null, query: ['q', ...PAGE] }),
  getTeams: op({ method: 'GET', path: '/v1/teams', status: 200, response: 'TeamPage', body: null, query: PAGE }),
  getLabels: op({ method: 'GET', path: '/v1/labels', status: 200, response: 'LabelList', body: null, query: [] }),

  // Projects and boards
  getProjects: op({ method: 'GET', path: '/v1/projects', status: 200, response: 'ProjectPage', body: null, query: PAGE }),
  postProjects: op({ method: 'POST', path: '/v1/projects', status: 201, response: 'ProjectWithBoardsResponse', body: 'CreateProjectInput', query: [] }),
  getProjectsById: op({ method: 'GET', path: '/v1/projects/{id}', status: 200, response: 'ProjectWithBoardsResponse', body: null, query: [] }),
  patchProjectsById: op({ method: 'PATCH', path: '/v1/projects/{id}', status: 200, response: 'ProjectResponse', body: 'UpdateProjectInput', query: [] }),
  getBoards: op({ method: 'GET', path: '/v1/boards', status: 200, response: 'BoardPage', body: null, query: ['projectId', ...PAGE] }),
  postBoards: op({ method: 'POST', path: '/v1/boards', status: 201, response: 'BoardResponse', body: 'CreateBoardInput', query: [] }),
  getBoardsById: op({ method: 'GET', path: '/v1/boards/{id}', status: 200, response: 'BoardResponse', body: null, query: [] }),
  postBoardsByIdStatuses: op({ method: 'POST', path: '/v1/boards/{id}/statuses', status: 201, response: 'BoardResponse', body: 'AddStatusInput', query: [] }),

  // Tasks and comments
  getTasks: op({
    method: 'GET', path: '/v1/tasks', status: 200, response: 'TaskPage', body: null,
    query: ['projectId', 'boardId', 'statusId', 'category', 'assigneeId', 'reporterId', 'type', 'priority', 'label', 'parentId', 'dueBefore', 'dueAfter', 'updatedSince', 'createdSince', 'createdBefore', 'q', 'archived', 'orderBy', ...PAGE],
  }),
  postTasks: op({ method: 'POST', path: '/v1/tasks', status: 201, response: 'TaskResponse', body: 'CreateTaskInput', query: [] }),
  postTasksBulk: op({ method: 'POST', path: '/v1/tasks/bulk', status: 200, response: 'BulkTasksResponse', body: 'BulkTasksInput', query: [] }),
  getTasksByRef: op({ method: 'GET', path: '/v1/tasks/{ref}', status: 200, response: 'TaskResponse', body: null, query: ['include'] }),
  patchTasksByRef: op({ method: 'PATCH', path: '/v1/tasks/{ref}', status: 200, response: 'TaskResponse', body: 'UpdateTaskInput', query: ['include'] }),
  deleteTasksByRef: op({ method: 'DELETE', path: '/v1/tasks/{ref}', status: 204, response: null, body: null, query: [] }),
  postTasksByRefMove: op({ method: 'POST', path: '/v1/tasks/{ref}/move', status: 201, response: 'TaskResponse', body: 'MoveTaskInput', query: [] }),
  getTasksByRefContext: op({
    method: 'GET', path: '/v1/tasks/{ref}/context', status: 200, response: 'TaskContextResponse', body: null, query: ['format'], text: 'text/markdown',
  }),
  getTasksByRefComments: op({ method: 'GET', path: '/v1/tasks/{ref}/comments', status: 200, response: 'CommentPage', body: null, query: PAGE }),
  postTasksByRefComments: op({ method: 'POST', path: '/v1/tasks/{ref}/comments', status: 201, response: 'CommentResponse', body: 'CreateCommentInput', query: [] }),

  // Time tracking
  postTasksByRefTime: op({ method: 'POST', path: '/v1/tasks/{ref}/time', status: 201, response: 'TimeLogResponse', body: 'LogTimeInput', query: [] }),
  getTimeEntries: op({
    method: 'GET', path: '/v1/time/entries', status: 200, response: 'TimeLogPage', body: null, query: ['from', 'to', 'userId', 'projectId', 'taskId', ...PAGE],
  }),
  getTimeReport: op({
    method: 'GET', path: '/v1/time/report', status: 200, response: 'TimeReport', body: null, query: ['from', 'to', 'userId', 'projectId', 'taskId', 'groupBy'],
  }),

  // Documents
  getDocSpaces: op({ method: 'GET', path: '/v1/doc-spaces', status: 200, response: 'DocSpacePage', body: null, query: [] }),
  getDocs: op({
    method: 'GET', path: '/v1/docs', status: 200, response: 'DocPage', body: null, query: ['spaceId', 'parentId', 'taskId', 'q', 'updatedSince', ...PAGE],
  }),
  postDocs: op({ method: 'POST', path: '/v1/docs', status: 201, response: 'DocResponse', body: 'CreateDocInput', query: [] }),
  getDocsById: op({ method: 'GET', path: '/v1/docs/{id}', status: 200, response: 'DocResponse', body: null, query: ['format'], text: 'text/markdown' }),
  patchDocsById: op({ method: 'PATCH', path: '/v1/docs/{id}', status: 200, response: 'DocResponse', body: 'UpdateDocInput', query: [] }),

  // Meetings
  getMeetingFolders: op({ method: 'GET', path: '/v1/meeting-folders', status: 200, response: 'MeetingFolderPage', body: null, query: [] }),
  getMeetings: op({
    method: 'GET', path: '/v1/meetings', status: 200, response: 'MeetingPage', body: null, query: ['folderId', 'projectId', 'status', 'from', 'to', 'q', ...PAGE],
  }),
  getMeetingsById: op({ method: 'GET', path: '/v1/meetings/{id}', status: 200, response: 'MeetingResponse', body: null, query: [] }),
  postMeetingsByIdActionItemsByIndexTask: op({
    method: 'POST', path: '/v1/meetings/{id}/action-items/{index}/task', status: 201, response: 'AgreementTaskResponse', body: 'TaskFromAgreementInput', query: [],
  }),
  getMeetingsByIdTranscript: op({
    method: 'GET', path: '/v1/meetings/{id}/transcript', status: 200, response: 'TranscriptResponse', body: null, query: ['format'], text: 'text/plain',
  }),

  // Activity
  getTasksByRefActivity: op({ method: 'GET', path: '/v1/tasks/{ref}/activity', status: 200, response: 'ActivityPage', body: null, query: PAGE }),
  getActivity: op({
    method: 'GET', path: '/v1/activity', status: 200, response: 'ActivityPage', body: null, query: ['since', 'until', 'projectId', 'actorId', 'taskId', ...PAGE],
  }),

  // Notifications
  getNotifications: op({ method: 'GET', path: '/v1/notifications', status: 200, response: 'NotificationPage', body: null, query: ['unread', ...PAGE] }),
  postNotificationsRead: op({
    method: 'POST', path: '/v1/notifications/read', status: 200, response: 'MarkReadResponse', body: 'MarkNotificationsReadInput', query: [],
  }),
} as const satisfies Record<string, OperationSpec>;

export type Operations = typeof operations;
export type OperationId = keyof Operations;
