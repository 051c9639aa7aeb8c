import { activity, AuditEntry, AuditQuery, type Deps, paged } from '@tt/domain';
import type { Routes } from '../../http/route.js';

/** Operator API: the audit log (keys, OAuth grants and clients, users, workspace settings, webhooks). */
export function activityAdminRoutes(r: Routes, deps: Deps): void {
  r.add({
    method: 'get', path: '/audit', tag: 'Operator', summary: '/audit',
    description:
      'Audit entries newest first: keys issued, changed and revoked; OAuth grants made and revoked, clients registered; users ' +
      'added and removed; workspace settings changed; webhooks created, changed and deleted. `actor.kind` is `operator` ' +
      '(the operator token) or `user`. Filters: `workspaceId`, `action`, `since`, `until`. Entries hold no secret.',
    query: AuditQuery, response: paged(AuditEntry, 'AuditPage'),
    handler: ({ query }) => activity.listAudit(query, deps),
  });
}
