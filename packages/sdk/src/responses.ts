import type { OperationId, Operations } from './operations.js';
import type {
  ActivityEntry, Board, BulkTaskResult, Comment, Doc, DocSpace, DocSummary, KeyInfo, MarkReadResult, Meeting, MeetingFolder, MeetingWithSummary, Notification, Project,
  ProjectWithBoards, Task, TaskContext, TaskSummary, Team, TimeLog, TimeReport, Transcript, User,
} from './types.js';

/** One page of a list: `nextCursor` is null on the last page, `total` counts every match. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
  total: number;
}

/** A single object in the `data` field. */
export interface Envelope<T> {
  data: T;
}

/** The TypeScript type of each answer schema named in the operations manifest (OpenAPI component names). */
export interface ResponseSchemas {
  KeyInfoResponse: Envelope<KeyInfo>;
  UserPage: Page<User>;
  TeamPage: Page<Team>;
  LabelList: Envelope<string[]>;
  ProjectPage: Page<Project>;
  ProjectResponse: Envelope<Project>;
  ProjectWithBoardsResponse: Envelope<ProjectWithBoards>;
  BoardPage: Page<Board>;
  BoardResponse: Envelope<Board>;
  TaskPage: Page<TaskSummary>;
  TaskResponse: Envelope<Task>;
  BulkTasksResponse: Envelope<BulkTaskResult[]>;
  TaskContextResponse: Envelope<TaskContext>;
  CommentPage: Page<Comment>;
  CommentResponse: Envelope<Comment>;
  TimeLogResponse: Envelope<TimeLog>;
  TimeLogPage: Page<TimeLog>;
  TimeReport: TimeReport;
  DocSpacePage: Page<DocSpace>;
  DocPage: Page<DocSummary>;
  DocResponse: Envelope<Doc>;
  MeetingFolderPage: Page<MeetingFolder>;
  MeetingPage: Page<Meeting>;
  MeetingResponse: Envelope<MeetingWithSummary>;
  TranscriptResponse: Envelope<Transcript>;
  AgreementTaskResponse: Envelope<Task>;
  NotificationPage: Page<Notification>;
  /** `total` stops at 1 000; `totalCapped` is then true (more match). */
  ActivityPage: Page<ActivityEntry> & { totalCapped: boolean };
  MarkReadResponse: Envelope<MarkReadResult>;
}

type Assert<T extends true> = T;
// Compile-time checks: every answer schema of the manifest has a type above, and the `...Page` names are exactly the pages.
type _EveryAnswerTyped = Assert<Exclude<Operations[OperationId]['response'], null> extends keyof ResponseSchemas ? true : false>;
type _PagesNamedPage = Assert<
  { [K in keyof ResponseSchemas]: (K extends `${string}Page` ? true : false) extends (ResponseSchemas[K] extends Page<unknown> ? true : false) ? true : false }[keyof ResponseSchemas]
>;

/** The JSON answer of an operation, typed through its schema name. */
export type ResponseOf<Op extends OperationId> = Operations[Op]['response'] extends keyof ResponseSchemas
  ? ResponseSchemas[Operations[Op]['response']]
  : undefined;

/** Operations whose answer is a page, so they can be iterated. */
export type PagedOperationId = {
  [Op in OperationId]: ResponseOf<Op> extends Page<unknown> ? Op : never;
}[OperationId];

/** The item type of a paged operation. */
export type ItemOf<Op extends PagedOperationId> = ResponseOf<Op> extends Page<infer T> ? T : never;
