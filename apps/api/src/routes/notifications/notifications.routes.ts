import { envelope, ListNotificationsQuery, MarkNotificationsReadInput, MarkReadResult, Notification, notifications, paged } from '@tt/domain';
import { actorOf, type Routes } from '../../http/route.js';

/** The key user's inbox: any valid key reads and marks its own user's notifications (only about tasks the key can see). */
export function notificationRoutes(r: Routes): void {
  r.add({
    method: 'get', path: '/notifications', tag: 'Notifications', summary: "The key user's inbox, newest first",
    description: 'Notifications of task assignments, comments, mentions and replies, about tasks the key can see. `unread=true` lists only unread ones.',
    query: ListNotificationsQuery,
    response: paged(Notification, 'NotificationPage'),
    handler: ({ req, query, deps }) => notifications.listInbox(actorOf(req), query, deps),
  });
  r.add({
    method: 'post', path: '/notifications/read', tag: 'Notifications', summary: 'Mark notifications read',
    description: 'Body `{ids: [...]}` marks those notifications of the inbox read (ids of others are ignored), `{all: true}` marks every one. ' +
      'Answers how many unread notifications became read.',
    body: MarkNotificationsReadInput,
    status: 200,
    response: envelope(MarkReadResult, 'MarkReadResponse'),
    handler: async ({ req, body, deps }) => ({ data: await notifications.markRead(actorOf(req), body, deps) }),
  });
}
