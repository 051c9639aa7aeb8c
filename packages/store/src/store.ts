import type { Knex } from 'knex';
import type { Repos, Store } from '@tt/domain';
import { keyRepo, labelRepo, teamRepo, userRepo, workspaceRepo } from './repos/company.js';
import { boardRepo, projectRepo } from './repos/projects.js';
import { attachmentRepo, commentRepo, outboxRepo, taskRepo } from './repos/tasks.js';

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
    outbox: outboxRepo(db),
  };
}

/** The Knex-backed store; a transaction hands the use case repositories bound to it. */
export function createStore(db: Knex): Store {
  return {
    ...repos(db),
    transaction: (fn) => db.transaction((trx) => fn(repos(trx))),
  };
}
