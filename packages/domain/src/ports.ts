/** The ports of the domain, by feature: records, filters and repositories the store implements. */
export type * from './ports/paging.js';
export type * from './ports/company.js';
export type * from './ports/projects.js';
export type * from './ports/tasks.js';
export type * from './ports/time.js';
export type * from './ports/docs.js';
export type * from './ports/meetings.js';
export type * from './ports/jobs.js';
import type { CompanyRepos } from './ports/company.js';
import type { ProjectRepos } from './ports/projects.js';
import type { TaskRepos } from './ports/tasks.js';
import type { TimeRepos } from './ports/time.js';
import type { DocRepos } from './ports/docs.js';
import type { MeetingRepos } from './ports/meetings.js';
import type { JobRepos } from './ports/jobs.js';
import type { WebhookRepo } from './webhook-ports.js';
import type { VersionsRepo } from './versions.js';
import type { IdempotencyRepo } from './idempotency.js';

export interface Repos extends CompanyRepos, ProjectRepos, TaskRepos, TimeRepos, DocRepos, MeetingRepos, JobRepos {
  /** Idempotency keys of retried requests (REST Idempotency-Key, MCP requestId). */
  idempotency: IdempotencyRepo;
  /** Versions of tasks, pages and projects (ETag / If-Match). */
  versions: VersionsRepo;
  webhooks: WebhookRepo;
}

/** The store: repositories plus a transaction boundary. Jobs added inside a transaction commit with it. */
export interface Store extends Repos {
  /** Runs `fn` in a transaction; its store opens nested transactions as savepoints, so use cases compose atomically. */
  transaction<T>(fn: (repos: Store) => Promise<T>): Promise<T>;
}
