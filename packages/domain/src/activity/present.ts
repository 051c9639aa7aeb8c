import { type ActivityRow, type AuditRecord, cutWhole } from '../shared/index.js';
import type { ActivityEntry, AuditEntry } from './schema.js';

/** The entry as REST, MCP and the SDK show it: only these fields, whatever the row carries. */
export function presentActivity(r: ActivityRow): ActivityEntry {
  return {
    id: r.id,
    at: r.at,
    actor: r.actorId === null ? null : { id: r.actorId, name: r.actorName ?? '', login: r.actorLogin ?? '' },
    via: { channel: r.channel, keyId: r.keyId, clientName: r.clientName, automationId: r.automationId },
    task: r.taskId === null ? null : { id: r.taskId, key: r.taskKey ?? '' },
    doc: r.docId === null ? null : { id: r.docId },
    action: r.action,
    changes: r.changes.map((c) => ({ field: c.field, from: c.from ?? null, to: c.to ?? null })),
  };
}

export function presentAudit(r: AuditRecord): AuditEntry {
  return {
    id: r.id,
    at: r.at,
    workspaceId: r.workspaceId,
    actor: { kind: r.actorKind, id: r.actorId },
    via: { channel: r.channel, keyId: r.keyId, clientName: r.clientName, automationId: null },
    action: r.action,
    target: { type: r.targetType, id: r.targetId },
    details: r.details,
  };
}

/** A change as one short line: `field: from → to`, values as compact JSON, each at most `max` characters. */
export function changeLine(c: { field: string; from: unknown; to: unknown }, max = 200): string {
  const show = (v: unknown) => {
    const s = v === null || v === undefined ? '∅' : typeof v === 'string' ? v : JSON.stringify(v);
    return s.length > max ? `${cutWhole(s, max)}…` : s;
  };
  return `${c.field}: ${show(c.from)} → ${show(c.to)}`;
}
