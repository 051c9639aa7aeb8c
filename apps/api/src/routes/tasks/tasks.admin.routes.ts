import { AttachmentInput, type Deps, tasks } from '@tt/domain';
import { operatorRoute } from '../../http/operator-route.js';
import type { Routes } from '../../http/route.js';

/** Operator API: archiving and restoring tasks, and their attachments. */
export function taskAdminRoutes(r: Routes, deps: Deps): void {
  const route = operatorRoute(r);
  route('post', '/tasks/:id/archive', undefined, 200, (p) => tasks.archiveTask(p.id, true, deps));
  route('post', '/tasks/:id/restore', undefined, 200, (p) => tasks.archiveTask(p.id, false, deps));
  route('post', '/tasks/:id/attachments', AttachmentInput, 201, (p, b) => tasks.addAttachment(p.id, b, deps));
}
