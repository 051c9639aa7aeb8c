import type { UserRecord, WorkspaceRecord } from '../keys/index.js';
import type { TeamRecord } from './ports.js';
import type { Team, User, Workspace } from './schema.js';

export const presentUser = (u: UserRecord): User => ({
  id: u.id, name: u.name, login: u.login, role: u.role, isAdmin: u.isAdmin, teamIds: u.teamIds,
});

export const presentTeam = (t: TeamRecord): Team => ({
  id: t.id, name: t.name, description: t.description, memberIds: t.memberIds, leadId: t.leadId,
});

export const presentWorkspace = (w: WorkspaceRecord): Workspace => ({
  id: w.id, name: w.name, plan: w.plan, timezone: w.timezone, memberKeysEnabled: w.memberKeysEnabled,
});
