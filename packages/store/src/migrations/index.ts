import type { Knex } from 'knex';
import * as core from './001-core.js';
import * as timeDocsMeetings from './002-time-docs-meetings.js';
import * as notificationsAutomations from './003-notifications-automations.js';
import * as idempotency from './004-idempotency.js';
import * as versions from './005-versions.js';
import * as webhooks from './006-webhooks.js';
import * as mcpLinks from './007-mcp-links.js';
import * as speed from './008-speed.js';
import * as labelCounts from './009-label-counts.js';
import * as updatedCovering from './010-updated-covering.js';
import * as activeLabels from './011-active-labels.js';
import * as notifyCheck from './012-notify-check.js';
import * as oauth from './013-oauth.js';
import * as oauthClientUse from './014-oauth-client-use.js';
import * as activity from './015-activity.js';
import * as dueCovering from './016-due-covering.js';
import * as activeUpdated from './017-active-updated.js';
import * as ginPending from './018-gin-pending.js';
import * as ginPendingPages from './019-gin-pending-pages.js';
import * as assigneeCounts from './020-assignee-counts.js';
import * as activeDue from './021-active-due.js';
import * as activityMeeting from './022-activity-meeting.js';
import * as bulkRuns from './023-bulk-runs.js';
import * as toolRuns from './024-tool-runs.js';
import * as mcpSessions from './025-mcp-sessions.js';

const MIGRATIONS: Record<string, Knex.Migration> = {
  '001-core': core,
  '002-time-docs-meetings': timeDocsMeetings,
  '003-notifications-automations': notificationsAutomations,
  '004-idempotency': idempotency,
  '005-versions': versions,
  '006-webhooks': webhooks,
  '007-mcp-links': mcpLinks,
  '008-speed': speed,
  '009-label-counts': labelCounts,
  '010-updated-covering': updatedCovering,
  '011-active-labels': activeLabels,
  '012-notify-check': notifyCheck,
  '013-oauth': oauth,
  '014-oauth-client-use': oauthClientUse,
  '015-activity': activity,
  '016-due-covering': dueCovering,
  '017-active-updated': activeUpdated,
  '018-gin-pending': ginPending,
  '019-gin-pending-pages': ginPendingPages,
  '020-assignee-counts': assigneeCounts,
  '021-active-due': activeDue,
  '022-activity-meeting': activityMeeting,
  '023-bulk-runs': bulkRuns,
  '024-tool-runs': toolRuns,
  '025-mcp-sessions': mcpSessions,
};

/** Migrations compiled into the bundle, so built apps need no migration directory. */
export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(MIGRATIONS).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => MIGRATIONS[name]!,
};
