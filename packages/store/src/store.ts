import type { Knex } from 'knex';
import type { Change, ChangeFeed, Repos, Store } from '@tt/domain';
import { keyRepo } from './repos/keys.js';
import { labelRepo, teamRepo, userRepo, workspaceRepo } from './repos/people.js';
import { boardRepo, projectRepo } from './repos/projects.js';
import { docRepo, docSpaceRepo } from './repos/docs.js';
import { meetingFolderRepo, meetingRepo } from './repos/meetings.js';
import { timeLogRepo } from './repos/time.js';
import { attachmentRepo, taskRepo } from './repos/tasks/index.js';
import { commentRepo } from './repos/comments.js';
import { automationRepo } from './repos/automations.js';
import { notificationRepo } from './repos/notifications.js';
import { outboxRepo } from './repos/outbox.js';
import { webhookRepo } from './repos/webhooks.js';
import { versionRepo } from './repos/versions.js';
import { idempotencyRepo } from './repos/idempotency.js';
import { bulkRunRepo } from './repos/bulk-runs.js';
import { mcpSessionRepo } from './repos/mcp-sessions.js';
import { oauthRepo } from './repos/oauth.js';
import { taskKeyRepo } from './repos/task-keys.js';
import { activityRepo, auditRepo } from './repos/activity.js';

function repos(db: Knex): Omit<Repos, 'changes'> {
  return {
    workspaces: workspaceRepo(db),
    users: userRepo(db),
    teams: teamRepo(db),
    keys: keyRepo(db),
    labels: labelRepo(db),
    projects: projectRepo(db),
    boards: boardRepo(db),
    tasks: taskRepo(db),
    comments: commentRepo(db),
    attachments: attachmentRepo(db),
    timeLogs: timeLogRepo(db),
    docSpaces: docSpaceRepo(db),
    docs: docRepo(db),
    meetingFolders: meetingFolderRepo(db),
    meetings: meetingRepo(db),
    notifications: notificationRepo(db),
    automations: automationRepo(db),
    idempotency: idempotencyRepo(db),
    bulkRuns: bulkRunRepo(db),
    mcpSessions: mcpSessionRepo(db),
    versions: versionRepo(db),
    outbox: outboxRepo(db),
    webhooks: webhookRepo(db),
    oauth: oauthRepo(db),
    taskKeys: taskKeyRepo(db),
    activity: activityRepo(db),
    audit: auditRepo(db),
  };
}

/**
 * The Knex-backed store; a transaction hands the use case repositories bound to it. Changes noted inside a
 * transaction are held until the outermost one commits and then go to `feed` (a rollback drops them); a nested
 * transaction (a savepoint) shares its parent's list.
 */
export function createStore(db: Knex, feed?: ChangeFeed, pending?: Change[]): Store {
  return {
    ...repos(db),
    changes: { note: (c) => (pending ? pending.push(c) : feed?.publish([c])) },
    transaction: async (fn) => {
      if (pending) return db.transaction((trx) => fn(createStore(trx, feed, pending)));
      const notes: Change[] = [];
      const result = await db.transaction((trx) => fn(createStore(trx, feed, notes)));
      if (notes.length) feed?.publish(notes);
      return result;
    },
  };
}
