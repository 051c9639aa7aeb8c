import { envelope, Id, ListMeetingsQuery, Meeting, MeetingFolder, meetings, MeetingWithSummary, paged, Task, TaskFromAgreementInput, Transcript, TranscriptFormatQuery, z } from '@tt/domain';
import { actorOf, type Routes } from '../../http/route.js';

const idParam = z.strictObject({ id: Id });
const agreementParams = z.strictObject({
  id: Id,
  index: z.coerce.number().int('must be an integer').min(0, 'must not be negative').max(100_000).openapi({ type: 'integer', description: '0-based position in summary.actionItems' }),
});

export function meetingRoutes(r: Routes): void {
  r.add({
    method: 'get', path: '/meeting-folders', tag: 'Meetings', summary: 'Meeting folders the key user may see',
    scope: 'meetings:read', response: paged(MeetingFolder, 'MeetingFolderPage'),
    handler: ({ req, deps }) => meetings.listFolders(actorOf(req), deps),
  });
  r.add({
    method: 'get', path: '/meetings', tag: 'Meetings', summary: 'Meetings, newest first',
    description: "`from`/`to` are meeting days in the workspace's time zone; `folderId=personal` lists your personal meetings.",
    scope: 'meetings:read', query: ListMeetingsQuery, response: paged(Meeting, 'MeetingPage'),
    handler: ({ req, query, deps }) => meetings.listMeetings(actorOf(req), query, deps),
  });
  r.add({
    method: 'get', path: '/meetings/:id', tag: 'Meetings', summary: 'A meeting with its summary',
    scope: 'meetings:read', params: idParam, response: envelope(MeetingWithSummary, 'MeetingResponse'),
    handler: async ({ req, params, deps }) => ({ data: await meetings.getMeeting(actorOf(req), params.id, deps) }),
  });
  r.add({
    method: 'post', path: '/meetings/:id/action-items/:index/task', tag: 'Meetings', summary: 'Create a task from a meeting agreement',
    description:
      'Needs tasks:write and meetings:read. The body is that of POST /tasks, all optional: title defaults to the agreement text, ' +
      'the assignee to its owner when the name or login fits exactly one person, dueDate to its due day, the place to the ' +
      "meeting's project. The task id is recorded as summary.actionItems[index].taskId. An agreement makes one task: a second " +
      'request answers 422 `rejected` naming the first task.',
    scope: 'tasks:write', status: 201, params: agreementParams, body: TaskFromAgreementInput, response: envelope(Task, 'AgreementTaskResponse'),
    handler: async ({ req, params, body, deps }) => ({ data: (await meetings.createTaskFromAgreement(actorOf(req), params.id, params.index, body, deps)).task }),
  });
  r.add({
    method: 'get', path: '/meetings/:id/transcript', tag: 'Meetings', summary: 'The transcript (or text with format=text)',
    description: 'Text form: one line per replica, `[hh:mm:ss] <speaker>: <utterance>`.',
    scope: 'meetings:read', params: idParam, query: TranscriptFormatQuery, response: envelope(Transcript, 'TranscriptResponse'),
    alternates: { 'text/plain': 'Text' },
    handler: async ({ req, res, params, query, deps }) => {
      const t = await meetings.getTranscript(actorOf(req), params.id, deps);
      if (query.format === 'json') return { data: t };
      res.status(200).type('text/plain; charset=utf-8').send(meetings.transcriptText(t));
      return undefined;
    },
  });
}
