import type { Deps } from '@tt/domain';
import type { JobSystem } from '@tt/jobs';
import type { Routes } from '../http/route.js';
import { activityAdminRoutes } from '../routes/activity/activity.admin.routes.js';
import { automationAdminRoutes } from '../routes/automations/automations.admin.routes.js';
import { docAdminRoutes } from '../routes/docs/docs.admin.routes.js';
import { keyAdminRoutes } from '../routes/keys/keys.admin.routes.js';
import { meetingAdminRoutes } from '../routes/meetings/meetings.admin.routes.js';
import { oauthAdminRoutes } from '../routes/oauth/oauth.admin.routes.js';
import { notificationAdminRoutes } from '../routes/notifications/notifications.admin.routes.js';
import { peopleAdminRoutes } from '../routes/people/people.admin.routes.js';
import { projectAdminRoutes } from '../routes/projects/projects.admin.routes.js';
import { taskAdminRoutes } from '../routes/tasks/tasks.admin.routes.js';
import { webhookAdminRoutes } from '../routes/webhooks/webhooks.admin.routes.js';
import { jobAdminRoutes } from './jobs.routes.js';

/**
 * The operator API of DESIGN.md, mounted feature by feature. The order is the order of the routes and of the
 * operator OpenAPI document: keep it.
 */
export function operatorRoutes(r: Routes, deps: Deps, jobs: JobSystem | undefined): void {
  peopleAdminRoutes(r, deps);
  keyAdminRoutes(r, deps);
  oauthAdminRoutes(r, deps);
  projectAdminRoutes(r, deps);
  taskAdminRoutes(r, deps);
  docAdminRoutes(r, deps);
  meetingAdminRoutes(r, deps);
  automationAdminRoutes(r, deps);
  notificationAdminRoutes(r, deps);
  jobAdminRoutes(r, deps, jobs);
  webhookAdminRoutes(r, deps);
  activityAdminRoutes(r, deps);
}
