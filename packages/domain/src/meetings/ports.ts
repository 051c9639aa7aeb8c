import type { CutPageResult, PageRequest } from '../shared/index.js';

export interface MeetingFolderRecord {
  id: string;
  workspaceId: string;
  name: string;
  parentId: string | null;
  teamIds: string[];
}

export interface MeetingSummaryRecord {
  overview: string;
  topics: Array<{ title: string; points: string[] }>;
  decisions: string[];
  actionItems: Array<{ text: string; owner: string; due: string | null; taskId: string | null }>;
  generatedAt: number;
}

export interface ReplicaRecord {
  speaker: string;
  start: string;
  end: string;
  text: string;
}

export interface MeetingRecord {
  id: string;
  workspaceId: string;
  title: string;
  url: string;
  folderId: string | null;
  projectId: string | null;
  createdBy: string;
  startedAt: number;
  endedAt: number | null;
  status: string;
  participants: string[];
  transcriptReady: boolean;
  summary: MeetingSummaryRecord | null;
}

/** Who may see which meetings: folders open or shared with the user's teams, and the user's personal ones. */
export interface MeetingFilter {
  workspaceId: string;
  userId: string;
  teamIds: string[];
  visibleProjectIds: string[] | null;
  folderId?: string | undefined;
  projectId?: string | undefined;
  status?: string | undefined;
  startedFrom?: number | undefined;
  startedBefore?: number | undefined;
  q?: string | undefined;
}

export interface AgreementRecord {
  meetingId: string;
  meetingTitle: string;
  startedAt: number;
  text: string;
  owner: string;
  due: string | null;
}

/** Repositories of meetings. */
export interface MeetingRepos {
  meetingFolders: {
    create(input: Omit<MeetingFolderRecord, 'id'>): Promise<MeetingFolderRecord>;
    get(workspaceId: string, id: string): Promise<MeetingFolderRecord | undefined>;
    listVisible(workspaceId: string, teamIds: string[]): Promise<MeetingFolderRecord[]>;
  };
  meetings: {
    insert(input: Omit<MeetingRecord, 'id'>, transcript: ReplicaRecord[] | null, summaryText: string): Promise<MeetingRecord>;
    get(workspaceId: string, id: string): Promise<MeetingRecord | undefined>;
    list(filter: MeetingFilter, page: PageRequest): Promise<CutPageResult<MeetingRecord>>;
    transcript(id: string): Promise<ReplicaRecord[]>;
    /** Action items naming the task, from meetings the filter lets the user see, newest meeting first. */
    agreementsForTask(taskId: string, visibility: Pick<MeetingFilter, 'workspaceId' | 'userId' | 'teamIds' | 'visibleProjectIds'>): Promise<AgreementRecord[]>;
    /** The summary, with the meeting row locked until the transaction ends (null when there is none). */
    lockSummary(id: string): Promise<MeetingSummaryRecord | null>;
    /** Stores the summary after agreement `index` got its task, and indexes that agreement under the task. */
    recordAgreementTask(id: string, index: number, summary: MeetingSummaryRecord): Promise<void>;
  };
}

declare module '../shared/store.js' {
  interface Repos extends MeetingRepos {}
}
