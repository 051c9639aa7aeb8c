import type { Knex } from 'knex';
import type { Repos, Store } from '@tt/domain';
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
import { oauthRepo } from './repos/oauth.js';

function repos(db: Knex): Repos {
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
    versions: versionRepo(db),
    outbox: outboxRepo(db),
    webhooks: webhookRepo(db),
    oauth: oauthRepo(db),
  };
}

/** The Knex-backed store; a transaction hands the use case repositories bound to it. */
export function createStore(db: Knex): Store {
  return {
    ...repos(db),
    transaction: (fn) => db.transaction((trx) => fn(createStore(trx))),
  };
}
