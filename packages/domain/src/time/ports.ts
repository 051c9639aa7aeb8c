import type { PageRequest, PageResult } from '../shared/index.js';
import type { TimeLogRecord } from '../tasks/index.js';

/** Which time logs a key may read, and the period and filters asked for. */
export interface TimeFilter {
  workspaceId: string;
  userId: string;
  visibleProjectIds: string[] | null;
  from: string;
  to: string;
  userIds?: string[] | undefined;
  projectIds?: string[] | undefined;
  taskIds?: string[] | undefined;
}

/** One group of a time report: the grouping keys with the names they show, and the sums. */
export interface TimeReportGroupRow {
  userId?: string;
  userName?: string;
  projectId?: string;
  projectKey?: string;
  projectName?: string;
  taskId?: string;
  taskKey?: string;
  taskTitle?: string;
  taskProjectId?: string;
  day?: string;
  seconds: number;
  entries: number;
}

/** Repositories of time. */
export interface TimeRepos {
  timeLogs: {
    insert(input: Omit<TimeLogRecord, 'id' | 'taskKey'>): Promise<TimeLogRecord>;
    list(filter: TimeFilter, page: PageRequest): Promise<PageResult<TimeLogRecord>>;
    report(filter: TimeFilter, groupBy: Array<'user' | 'task' | 'project' | 'day'>): Promise<TimeReportGroupRow[]>;
  };
}

declare module '../shared/store.js' {
  interface Repos extends TimeRepos {}
}
