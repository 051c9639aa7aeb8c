import {
  admin, AttachmentInput, CreateDocSpaceInput, CreateMeetingFolderInput, CreateMeetingInput, docs, meetings, BoardAccessInput, CreateTeamInput, CreateUserInput, CreateWorkspaceInput, Id, IssueKeyInput, UpdateKeyInput,
  UpdateWorkspaceInput, z, type Deps,
} from '@tt/domain';
import type { Routes } from '../http/route.js';

const id = z.strictObject({ id: Id });

/** The operator API of DESIGN.md: workspaces, people, keys, access and task archiving. */
export function adminRoutes(r: Routes, deps: Deps): void {
  const route = (
    method: 'get' | 'post' | 'patch' | 'put' | 'delete',
    path: string,
    body: z.ZodType | undefined,
    status: 200 | 201 | 204,
    run: (params: { id: string }, body: never) => Promise<unknown>,
  ) =>
    r.add({
      method, path, summary: path, tag: 'Operator', status, params: path.includes(':id') ? id : undefined, body,
      handler: async ({ params, body: b }) => {
        const out = await run(params as { id: string }, b as never);
        return status === 204 ? undefined : { data: out };
      },
    });

  route('post', '/workspaces', CreateWorkspaceInput, 201, (_p, b) => admin.createWorkspace(b, deps));
  route('patch', '/workspaces/:id', UpdateWorkspaceInput, 200, (p, b) => admin.updateWorkspace(p.id, b, deps));
  route('post', '/workspaces/:id/users', CreateUserInput, 201, (p, b) => admin.createUser(p.id, b, deps));
  route('delete', '/users/:id', undefined, 204, (p) => admin.deleteUser(p.id, deps));
  route('post', '/workspaces/:id/teams', CreateTeamInput, 201, (p, b) => admin.createTeam(p.id, b, deps));
  route('post', '/users/:id/keys', IssueKeyInput, 201, (p, b) => admin.issueKey(p.id, b, deps));
  route('patch', '/keys/:id', UpdateKeyInput, 200, (p, b) => admin.updateKey(p.id, b, deps));
  route('delete', '/keys/:id', undefined, 204, (p) => admin.revokeKey(p.id, deps));
  route('put', '/boards/:id/access', BoardAccessInput, 200, (p, b) => admin.setBoardAccess(p.id, b, deps));
  route('post', '/tasks/:id/archive', undefined, 200, (p) => admin.archiveTask(p.id, true, deps));
  route('post', '/tasks/:id/restore', undefined, 200, (p) => admin.archiveTask(p.id, false, deps));
  route('post', '/tasks/:id/attachments', AttachmentInput, 201, (p, b) => admin.addAttachment(p.id, b, deps));
  route('post', '/workspaces/:id/doc-spaces', CreateDocSpaceInput, 201, (p, b) => docs.createSpace(p.id, b, deps));
  route('post', '/workspaces/:id/meeting-folders', CreateMeetingFolderInput, 201, (p, b) => meetings.createFolder(p.id, b, deps));
  route('post', '/workspaces/:id/meetings', CreateMeetingInput, 201, (p, b) => meetings.createMeeting(p.id, b, deps));
}
