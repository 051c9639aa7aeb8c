/**
 * Every type the SDK exposes, derived from the zod schemas in @tt/domain that also validate requests
 * and generate the OpenAPI document. Only this file imports the domain, and only types: the build
 * (scripts/inline-types.mjs) expands these aliases in dist/*.d.ts, so the published declarations
 * stand alone and the runtime code never loads zod or the domain.
 *
 * Rule for this file: every alias that mentions a domain type is concrete (no type parameters).
 */
import type * as D from '@tt/domain';
import type { z } from '@tt/domain';

// ---- Resources (response shapes) ----
export type User = D.User;
export type Team = D.Team;
export type KeyInfo = D.KeyInfo;
export type Scope = D.Scope;
export type Project = D.Project;
export type ProjectWithBoards = D.ProjectWithBoards;
export type Board = D.Board;
export type Status = D.Status;
export type Category = D.Category;
export type TaskSummary = D.TaskSummary;
export type Task = D.Task;
/** One item's answer in a bulk change: `status` 200 with `data`, or the item's 4xx with `error`. */
export type BulkTaskResult = D.BulkTaskResult;
export type TaskType = D.TaskType;
export type Priority = D.Priority;
export type ChecklistItem = D.ChecklistItem;
export type Attachment = D.Attachment;
export type Comment = D.Comment;
export type TaskContext = z.output<typeof D.TaskContext>;
export type TimeLog = D.TimeLog;
export type TimeReport = D.TimeReport;
export type TimeReportRow = D.TimeReportRow;
export type GroupBy = D.GroupBy;
export type DocSpace = D.DocSpace;
export type DocSummary = D.DocSummary;
export type Doc = D.Doc;
export type MeetingFolder = D.MeetingFolder;
export type Meeting = D.Meeting;
export type MeetingWithSummary = D.MeetingWithSummary;
export type MeetingSummary = D.MeetingSummary;
export type Transcript = D.Transcript;
export type Replica = D.Replica;
export type Notification = D.Notification;
export type NotificationKind = D.NotificationKind;
export type MarkReadResult = D.MarkReadResult;
export type ActivityEntry = D.ActivityEntry;
export type ActivityVia = z.output<typeof D.ActivityVia>;
export type FieldChange = z.output<typeof D.FieldChangeSchema>;

/** The `code` of an error answer, from the spec's error table. */
export type ErrorCode = D.ErrorCode;

// ---- Request bodies: the schemas' input types, so fields with defaults are optional ----
export type CreateProjectInput = z.input<typeof D.CreateProjectInput>;
export type UpdateProjectInput = z.input<typeof D.UpdateProjectInput>;
export type CreateBoardInput = z.input<typeof D.CreateBoardInput>;
export type AddStatusInput = z.input<typeof D.AddStatusInput>;
export type CreateTaskInput = z.input<typeof D.CreateTaskInput>;
export type UpdateTaskInput = z.input<typeof D.UpdateTaskInput>;
/** One item of `tasks.bulk`: PATCH's fields plus `task` (key or id) and `column` (name, id or category). */
export type BulkTaskItem = z.input<typeof D.BulkTaskItem>;
export type MoveTaskInput = z.input<typeof D.MoveTaskInput>;
export type CreateCommentInput = z.input<typeof D.CreateCommentInput>;
export type LogTimeInput = z.input<typeof D.LogTimeInput>;
export type CreateDocInput = z.input<typeof D.CreateDocInput>;
export type UpdateDocInput = z.input<typeof D.UpdateDocInput>;
export type MarkNotificationsReadInput = z.input<typeof D.MarkNotificationsReadInput>;
export type TaskFromAgreementInput = z.input<typeof D.TaskFromAgreementInput>;

// ---- Query parameters: the parsed (output) types made optional; comma lists also take arrays ----
type QueryValue<T> = T extends readonly (infer U)[] ? readonly U[] | string : T;
type QueryOf<T> = { [K in keyof T]?: QueryValue<T[K]> };
type MomentQuery = { updatedSince?: number | string | Date };
type Simplify<T> = { [K in keyof T]: T[K] };

export type PageParams = QueryOf<z.output<z.ZodObject<typeof D.PageQuery>>>;
export type ListUsersParams = Simplify<PageParams & { q?: string }>;
export type ListBoardsParams = Simplify<PageParams & { projectId?: string }>;
export type ListTasksParams = Simplify<
  Omit<QueryOf<z.output<typeof D.ListTasksQuery>>, 'updatedSince' | 'createdSince' | 'createdBefore'> & MomentQuery &
  { createdSince?: number | string | Date; createdBefore?: number | string | Date }
>;
export type TimeEntriesParams = QueryOf<z.output<typeof D.TimeEntriesQuery>>;
export type TimeReportParams = QueryOf<z.output<typeof D.TimeReportQuery>>;
export type ListDocsParams = Simplify<Omit<QueryOf<z.output<typeof D.ListDocsQuery>>, 'updatedSince'> & MomentQuery>;
export type ListMeetingsParams = QueryOf<z.output<typeof D.ListMeetingsQuery>>;
export type TaskActivityParams = PageParams;
export type ActivityParams = Simplify<
  Omit<QueryOf<z.output<typeof D.ActivityQuery>>, 'since' | 'until'> & { since?: number | string | Date; until?: number | string | Date }
>;
export type ListNotificationsParams = QueryOf<z.output<typeof D.ListNotificationsQuery>>;

// ---- Operator API (/admin/v1): the service's own interface for operators and tests ----
export type Workspace = D.Workspace;
export type Plan = D.Plan;
export type ApiKey = D.ApiKey;
export type IssuedKey = z.output<typeof D.IssuedKey>;
export type BoardWithAccess = D.Board & { memberIds: string[] | null };
export type DocSpaceWithMembers = D.DocSpace & { memberIds: string[] | null };
export type Automation = D.Automation;
export type AutomationAction = D.AutomationAction;
export type CreateWorkspaceInput = z.input<typeof D.CreateWorkspaceInput>;
export type UpdateWorkspaceInput = z.input<typeof D.UpdateWorkspaceInput>;
export type CreateUserInput = z.input<typeof D.CreateUserInput>;
export type CreateTeamInput = z.input<typeof D.CreateTeamInput>;
export type IssueKeyInput = z.input<typeof D.IssueKeyInput>;
export type UpdateKeyInput = z.input<typeof D.UpdateKeyInput>;
export type BoardAccessInput = z.input<typeof D.BoardAccessInput>;
export type AttachmentInput = z.input<typeof D.AttachmentInput>;
export type CreateAutomationInput = z.input<typeof D.CreateAutomationInput>;
export type CreateDocSpaceInput = z.input<typeof D.CreateDocSpaceInput>;
export type CreateMeetingFolderInput = z.input<typeof D.CreateMeetingFolderInput>;
export type CreateMeetingInput = z.input<typeof D.CreateMeetingInput>;
export type UserNotificationsParams = QueryOf<z.output<typeof D.UserNotificationsQuery>>;

// ---- Webhooks: subscriptions (operator API), deliveries and the body of a delivery ----
export type Webhook = D.Webhook;
export type WebhookWithSecret = D.WebhookWithSecret;
export type WebhookDelivery = D.WebhookDelivery;
export type WebhookEventType = D.WebhookEventType;
export type WebhookEvent = D.WebhookEventBody;
export type CreateWebhookInput = z.input<typeof D.CreateWebhookInput>;
export type UpdateWebhookInput = z.input<typeof D.UpdateWebhookInput>;
export type ListDeliveriesParams = QueryOf<z.output<typeof D.ListDeliveriesQuery>>;
