import { Id, notifications, UserNotificationsQuery, z, type Deps } from '@tt/domain';
import type { Routes } from '../../http/route.js';

const byId = z.strictObject({ id: Id });

/** Operator API: a user's notifications. */
export function notificationAdminRoutes(r: Routes, deps: Deps): void {
  r.add({
    method: 'get', path: '/users/:id/notifications', tag: 'Operator', summary: "A user's notifications, newest first", params: byId,
    query: UserNotificationsQuery,
    handler: async ({ params, query }) => ({ data: await notifications.userNotifications(params.id, query, deps) }),
  });
}
