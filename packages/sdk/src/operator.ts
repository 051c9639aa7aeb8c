import { HttpClient, type CallInput, type ClientOptions, type RequestOptions } from './http.js';
import type { RequestSpec } from './operations.js';
import type { Envelope, Page } from './responses.js';
import type {
  ApiKey, Attachment, AttachmentInput, Automation, BoardAccessInput, BoardWithAccess, CreateAutomationInput, CreateDocSpaceInput,
  CreateMeetingFolderInput, CreateMeetingInput, CreateTeamInput, CreateUserInput, CreateWorkspaceInput, DocSpaceWithMembers, IssuedKey,
  IssueKeyInput, MeetingFolder, MeetingWithSummary, Notification, Task, Team, UpdateKeyInput, UpdateWorkspaceInput, User,
  UserNotificationsParams, Workspace, CreateWebhookInput, UpdateWebhookInput, Webhook, WebhookWithSecret, WebhookDelivery, ListDeliveriesParams,
} from './types.js';

export interface OperatorClientOptions extends Omit<ClientOptions, 'apiKey'> {
  /** The server's ADMIN_TOKEN. */
  adminToken: string;
}

type Method = RequestSpec['method'];

/**
 * Client of the operator API (`/admin/v1`): workspaces, people, keys, access, archiving, and the
 * fixtures of documents and meetings. Same transport as the REST client: errors, retries, timeouts.
 */
export class OperatorClient {
  readonly http: HttpClient;

  constructor(options: OperatorClientOptions) {
    const { adminToken, ...rest } = options;
    this.http = new HttpClient({ ...rest, apiKey: adminToken });
  }

  private async data<T>(method: Method, path: string, status: RequestSpec['status'], input: CallInput, opts?: RequestOptions): Promise<T> {
    const answer = await this.http.request<Envelope<T> | undefined>({ method, path: `/admin/v1${path}`, status }, input, opts);
    return answer?.data as T;
  }

  readonly workspaces = {
    /** A new workspace (plan default `business`, time zone default Europe/Moscow). */
    create: (input: CreateWorkspaceInput, opts?: RequestOptions) => this.data<Workspace>('POST', '/workspaces', 201, { body: input }, opts),
    /** Renames, changes the plan or time zone, or turns members' keys off (`memberKeysEnabled: false`). */
    update: (id: string, input: UpdateWorkspaceInput, opts?: RequestOptions) =>
      this.data<Workspace>('PATCH', '/workspaces/{id}', 200, { params: { id }, body: input }, opts),
  };

  readonly users = {
    create: (workspaceId: string, input: CreateUserInput, opts?: RequestOptions) =>
      this.data<User>('POST', '/workspaces/{id}/users', 201, { params: { id: workspaceId }, body: input }, opts),
    /** Deletes the user; their keys stop working at once. */
    delete: (id: string, opts?: RequestOptions) => this.data<void>('DELETE', '/users/{id}', 204, { params: { id } }, opts),
    /** The user's notifications, newest first. */
    notifications: (id: string, params: UserNotificationsParams = {}, opts?: RequestOptions) =>
      this.data<Notification[]>('GET', '/users/{id}/notifications', 200, { params: { id }, query: params }, opts),
  };

  readonly teams = {
    create: (workspaceId: string, input: CreateTeamInput, opts?: RequestOptions) =>
      this.data<Team>('POST', '/workspaces/{id}/teams', 201, { params: { id: workspaceId }, body: input }, opts),
  };

  readonly keys = {
    /** Issues a key for the user; the token is in the answer only. */
    issue: (userId: string, input: IssueKeyInput = {}, opts?: RequestOptions) =>
      this.data<IssuedKey>('POST', '/users/{id}/keys', 201, { params: { id: userId }, body: input }, opts),
    /** Changes the expiry, the past included. */
    update: (id: string, input: UpdateKeyInput, opts?: RequestOptions) =>
      this.data<ApiKey>('PATCH', '/keys/{id}', 200, { params: { id }, body: input }, opts),
    /** Revokes the key at once, in every process. */
    revoke: (id: string, opts?: RequestOptions) => this.data<void>('DELETE', '/keys/{id}', 204, { params: { id } }, opts),
  };

  readonly boards = {
    /** Closes the board to the listed members (null = open to the workspace). */
    setAccess: (id: string, input: BoardAccessInput, opts?: RequestOptions) =>
      this.data<BoardWithAccess>('PUT', '/boards/{id}/access', 200, { params: { id }, body: input }, opts),
    addAutomation: (id: string, input: CreateAutomationInput, opts?: RequestOptions) =>
      this.data<Automation>('POST', '/boards/{id}/automations', 201, { params: { id }, body: input }, opts),
    automations: (id: string, opts?: RequestOptions) => this.data<Automation[]>('GET', '/boards/{id}/automations', 200, { params: { id } }, opts),
    deleteAutomation: (automationId: string, opts?: RequestOptions) =>
      this.data<void>('DELETE', '/automations/{id}', 204, { params: { id: automationId } }, opts),
  };

  readonly tasks = {
    archive: (id: string, opts?: RequestOptions) => this.data<Task>('POST', '/tasks/{id}/archive', 200, { params: { id } }, opts),
    restore: (id: string, opts?: RequestOptions) => this.data<Task>('POST', '/tasks/{id}/restore', 200, { params: { id } }, opts),
    /** Attachment metadata (name, size, media type). */
    addAttachment: (id: string, input: AttachmentInput, opts?: RequestOptions) =>
      this.data<Attachment>('POST', '/tasks/{id}/attachments', 201, { params: { id }, body: input }, opts),
  };

  readonly docSpaces = {
    create: (workspaceId: string, input: CreateDocSpaceInput, opts?: RequestOptions) =>
      this.data<DocSpaceWithMembers>('POST', '/workspaces/{id}/doc-spaces', 201, { params: { id: workspaceId }, body: input }, opts),
  };

  readonly meetingFolders = {
    create: (workspaceId: string, input: CreateMeetingFolderInput, opts?: RequestOptions) =>
      this.data<MeetingFolder>('POST', '/workspaces/{id}/meeting-folders', 201, { params: { id: workspaceId }, body: input }, opts),
  };

  readonly meetings = {
    /** Records a meeting with its summary and transcript (`folderId` null = personal meeting of `createdBy`). */
    create: (workspaceId: string, input: CreateMeetingInput, opts?: RequestOptions) =>
      this.data<MeetingWithSummary>('POST', '/workspaces/{id}/meetings', 201, { params: { id: workspaceId }, body: input }, opts),
  };

  readonly webhooks = {
    /** Subscribes a URL to events of a workspace; the answer holds the signing secret, shown only here. */
    create: (workspaceId: string, input: CreateWebhookInput, opts?: RequestOptions) =>
      this.data<WebhookWithSecret>('POST', '/workspaces/{id}/webhooks', 201, { params: { id: workspaceId }, body: input }, opts),
    list: (workspaceId: string, opts?: RequestOptions) =>
      this.data<Webhook[]>('GET', '/workspaces/{id}/webhooks', 200, { params: { id: workspaceId } }, opts),
    /** Changes url, events, projectIds or active (true switches a disabled subscription on again). */
    update: (id: string, input: UpdateWebhookInput, opts?: RequestOptions) =>
      this.data<Webhook>('PATCH', '/webhooks/{id}', 200, { params: { id }, body: input }, opts),
    delete: (id: string, opts?: RequestOptions) => this.data<void>('DELETE', '/webhooks/{id}', 204, { params: { id } }, opts),
    /** A new secret; the previous one keeps signing for 24 hours. */
    rotateSecret: (id: string, opts?: RequestOptions) =>
      this.data<WebhookWithSecret>('POST', '/webhooks/{id}/rotate-secret', 200, { params: { id } }, opts),
    /** The delivery log, newest first (one page). */
    deliveries: (id: string, params: ListDeliveriesParams = {}, opts?: RequestOptions) =>
      this.http.request<Page<WebhookDelivery>>({ method: 'GET', path: '/admin/v1/webhooks/{id}/deliveries', status: 200 }, { params: { id }, query: params }, opts),
    /** Sends a delivery's event again as a new delivery. */
    redeliver: (id: string, deliveryId: string, opts?: RequestOptions) =>
      this.data<WebhookDelivery>('POST', '/webhooks/{id}/deliveries/{deliveryId}/redeliver', 201, { params: { id, deliveryId } }, opts),
  };
}
