import { describe, expect, it } from 'vitest';
import * as domain from '../index.js';

/*
 * Every use case that changes something must write an activity or audit entry. This list names each one with the
 * entry it writes (and the test that proves it); a new exported function of a feature that is neither here nor a
 * read fails this test, so whoever adds a write decides what it records.
 */

/** Write use cases and what each records (activity action or audit action). */
const RECORDED: Record<string, string> = {
  'tasks.createTask': 'task.created', 'tasks.createTaskVersioned': 'task.created', 'tasks.createTaskIn': 'task.created',
  'tasks.updateTask': 'task.updated', 'tasks.updateTaskVersioned': 'task.updated', 'tasks.moveTask': 'task.moved',
  'tasks.moveTaskVersioned': 'task.moved', 'tasks.deleteTask': 'task.deleted', 'tasks.archiveTask': 'task.archived / task.restored',
  'tasks.addAttachment': 'attachment.added', 'comments.addComment': 'comment.created', 'time.logTime': 'time.logged',
  'docs.createDoc': 'doc.created', 'docs.createDocVersioned': 'doc.created', 'docs.updateDoc': 'doc.updated', 'docs.updateDocVersioned': 'doc.updated',
  'meetings.createTaskFromAgreement': 'task.created_from_agreement', 'automations.runTaskCreated': 'the actions above, as the worker',
  'keys.issueKey': 'key.issued', 'keys.updateKey': 'key.changed', 'keys.revokeKey': 'key.revoked',
  'people.createWorkspace': 'workspace.created', 'people.updateWorkspace': 'workspace.changed', 'people.createUser': 'user.added',
  'people.deleteUser': 'user.removed', 'oauth.registerClient': 'oauth.client_registered', 'oauth.exchangeCode': 'oauth.grant_made',
  'oauth.revokeGrant': 'oauth.grant_revoked', 'oauth.revokeToken': 'oauth.grant_revoked',
  'webhooks.createWebhook': 'webhook.created', 'webhooks.updateWebhook': 'webhook.changed', 'webhooks.deleteWebhook': 'webhook.deleted',
  'webhooks.rotateSecret': 'webhook.secret_rotated',
  'docs.createTaskWithDocs': 'task.created, and task.updated (docIds) with doc.updated per page linked',
  'docs.updateTaskWithDocs': 'task.updated, with docIds and doc.updated per page linked or unlinked',
  'tasks.bulkUpdateTasks': 'task.updated / task.moved per item applied, as updateTask and moveTask',
  'tasks.applyTaskItems': 'task.updated / task.moved per item applied (bulkUpdateTasks, a slice at a time)',
  'tasks.runBulk': 'task.updated / task.moved per item applied (applyTaskItems, a batch at a time, as an MCP task)',
};

/**
 * Writes that record nothing, each with the reason: structure and configuration an operator sets up (projects,
 * boards, spaces, folders, teams, automations: not a task's or page's history), personal state, and the plumbing.
 */
const NOT_RECORDED: Record<string, string> = {
  'projects.createProject': 'structure', 'projects.createProjectVersioned': 'structure', 'projects.updateProject': 'structure', 'projects.createBoard': 'structure', 'projects.addStatus': 'structure',
  'projects.setBoardAccess': 'structure', 'projects.updateProjectVersioned': 'structure', 'people.createTeam': 'structure', 'docs.createSpace': 'structure',
  'meetings.createFolder': 'structure', 'meetings.createMeeting': 'recorded meetings come from the recorder, not a change of work',
  'automations.createAutomation': 'configuration', 'automations.deleteAutomation': 'configuration',
  'notifications.markRead': 'personal inbox state', 'notifications.deliverAssigned': 'plumbing', 'notifications.deliverComment': 'plumbing', 'webhooks.deliver': 'plumbing', 'webhooks.redeliver': 'plumbing',
  'oauth.approve': 'issues a one-use code; the grant is recorded when exchanged', 'oauth.refresh': 'token rotation of a recorded grant',
  'oauth.pruneGrants': 'housekeeping', 'activity.pruneActivity': 'housekeeping',
  'tasks.startBulkRun': 'stores a bulk run; its items are recorded as they apply (runBulk)',
  'tasks.runGoing': 'a predicate on a run, not a change',
  'tasks.startRun': 'stores an MCP task run; the tool it runs records its own changes', 'tasks.renewRun': 'a run\'s lease, bookkeeping',
  'tasks.finishRun': 'a run\'s outcome, bookkeeping', 'tasks.parkRun': 'a run waiting for the client\'s input, bookkeeping',
  'tasks.answerRun': 'the client\'s input to a run, bookkeeping; the resumed tool records its own changes',
  'tasks.moveEntry': 'builds the task.moved entry a change writes (not a write itself)', 'tasks.bulkPoints': 'counts a bulk call\'s rate-limit points',
  'keys.apiKeyHash': 'hashes the bearer key a request sends (a read\'s first step, not a change)',
};

/** Names of functions that only read (or check, render, build) by their verb. */
const READ = /^(seen|taskByRef|taskFieldChanges|taskMoveChanges|taskCreatedChanges|numberRanges|pageMarkdown|transcriptText|statusFilter|endpointScopes|pkce|validChallenge|createClientDirectory|failedTooLong|classifyAddress|refusedAddress|commentRecipients|get|list|search|find|visible|read|present|render|resolve|check|assert|can|has|require|filter|is|to|from|parse|authenticate|task(View|Comment|Activity)|latest|complete|context|report|count|whoami|me|board|column|project|first|user|space|folder|agreements|docsFor|withVisible|lookup|by|as|format|describe|plan|verify|sign|hash|new|same|bearer|ip|client|form|code|grant|refresh|redirect|webhook|subscription|address|delivery|retry|backoff|next|wall|change|activity|audit|job|encode|decode|today|day|week|rich|html|markdown|text|mention|storable|one|oauth|key|scope|taskRef|taskChanges|sort|rank|position|place|agreementTask|dedupe|events|taskEvent|taskChangeEvents|webhookTask|recordEvent|withoutVersion|checkVersion|versioned|bump|once|claim|replay|fingerprint|idempotency)/;

describe('every write use case records an entry', () => {
  it('names each exported function that is not a read in RECORDED or NOT_RECORDED', () => {
    const features = ['tasks', 'comments', 'time', 'docs', 'meetings', 'automations', 'keys', 'people', 'projects', 'oauth', 'webhooks', 'notifications', 'activity'] as const;
    const unnamed: string[] = [];
    for (const f of features) {
      for (const [name, value] of Object.entries((domain as any)[f] as Record<string, unknown>)) {
        if (typeof value !== 'function' || /^[A-Z]/.test(name)) continue;
        const id = `${f}.${name}`;
        if (RECORDED[id] || NOT_RECORDED[id]) continue;
        if (!READ.test(name)) unnamed.push(id);
      }
    }
    expect(unnamed, 'new write use cases: record an activity or audit entry, and name them in RECORDED (or say why not in NOT_RECORDED)').toEqual([]);
  });

  it('names only functions that exist', () => {
    const missing = [...Object.keys(RECORDED), ...Object.keys(NOT_RECORDED)].filter((id) => {
      const [f, name] = id.split('.') as [string, string];
      return typeof (domain as any)[f]?.[name] !== 'function';
    });
    expect(missing).toEqual([]);
  });
});
