import { CreateMeetingFolderInput, CreateMeetingInput, meetings, type Deps } from '@tt/domain';
import { operatorRoute } from '../../http/operator-route.js';
import type { Routes } from '../../http/route.js';

/** Operator API: meeting folders and recorded meetings of a workspace. */
export function meetingAdminRoutes(r: Routes, deps: Deps): void {
  const route = operatorRoute(r);
  route('post', '/workspaces/:id/meeting-folders', CreateMeetingFolderInput, 201, (p, b) => meetings.createFolder(p.id, b, deps));
  route('post', '/workspaces/:id/meetings', CreateMeetingInput, 201, (p, b) => meetings.createMeeting(p.id, b, deps));
}
