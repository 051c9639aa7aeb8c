import type { UserRecord } from '../keys/index.js';
import type { AutomationAction } from './schema.js';

export interface AutomationRecord {
  id: string;
  workspaceId: string;
  boardId: string;
  ownerId: string;
  trigger: 'task_created';
  statusId: string | null;
  actions: AutomationAction[];
  createdAt: number;
}

/** Repositories of automations. */
export interface AutomationRepos {
  automations: {
    create(input: Omit<AutomationRecord, 'id'>): Promise<AutomationRecord>;
    get(id: string): Promise<AutomationRecord | undefined>;
    list(boardId: string): Promise<AutomationRecord[]>;
    delete(id: string): Promise<boolean>;
    /** task_created rules of a board for a column (rules without a column too) made no later than `at`, oldest first. */
    forTaskCreated(boardId: string, statusId: string, at: number): Promise<AutomationRecord[]>;
    /** Records that a rule ran on a task; false if it already had (so a redelivered job does nothing). */
    claimRun(automationId: string, taskId: string, at: number): Promise<boolean>;
    /** The default owner of a rule: the workspace's earliest live admin. */
    firstAdmin(workspaceId: string): Promise<UserRecord | undefined>;
  };
}

declare module '../shared/store.js' {
  interface Repos extends AutomationRepos {}
}
