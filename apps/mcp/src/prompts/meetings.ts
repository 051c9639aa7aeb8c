import { z } from 'zod';
import { meetings, projects } from '@tt/domain';
import { bound } from '../answer/answer.js';
import { fence, fenceInline } from '../answer/untrusted.js';
import { ARGS } from './args.js';
import { definePrompt, forArg } from './prompt.js';

/** Turn a meeting's agreements into tasks: the agreements, fenced, and how create_task_from_agreement records them. */
export const meetingToTasks = definePrompt({
  name: 'meeting_to_tasks',
  title: "Turn a meeting's agreements into tasks",
  description: "Proposes one task per agreement (action item) of a meeting that has none yet, and creates them once you confirm.",
  scopes: ['meetings:read', 'tasks:read'],
  toolset: 'meetings',
  args: z.object({ meeting: ARGS.meeting, project: ARGS.project.optional() }),
  async run({ meeting, project }, { actor, deps }) {
    const m = await forArg('meeting', meetings.getMeeting(actor, meeting, deps));
    const p = project === undefined ? undefined : await forArg('project', projects.projectByRef(actor, project, deps.store, 'list_projects shows project keys'));
    const items = m.summary?.actionItems ?? [];
    const lines = items.map((a, i) =>
      `${i}. ${a.taskId ? `already task ${a.taskId}` : 'no task yet'}; owner ${fenceInline('agreement', a.owner, { id: `${m.id}#${i}` })}; ` +
      `due ${a.due ?? 'not set'}\n${fence('agreement', a.text, { id: `${m.id}#${i}` })}`);
    const target = p ? `in project ${p.key}` : m.projectId ? "in the meeting's project" : 'in the project I name (the meeting has none; ask me)';
    return bound([
      `Turn the agreements of meeting ${m.id} into tasks ${target}.`,
      '',
      'First show me one line per agreement without a task: the title you propose (short, starting with a verb), the assignee ' +
        '(the owner; list_users when the name is ambiguous), the due day and the priority. Skip agreements that already have a task.',
      `After I confirm, call create_task_from_agreement once per agreement (meeting "${m.id}", agreement = its number below` +
        `${p ? `, project "${p.key}"` : ''}); it records the task on the agreement, so a second run creates nothing twice. ` +
        'get_meeting with includeTranscript shows who said what when an agreement is unclear.',
      '',
      `Meeting: ${fenceInline('meeting-title', m.title, { id: m.id })}`,
      '',
      m.summary ? `Overview:\n${fence('summary', m.summary.overview, { id: m.id })}` : 'This meeting has no summary yet, so no agreements: say so and stop.',
      '',
      `## Agreements (${items.length})`,
      '',
      items.length ? lines.join('\n\n') : 'None.',
    ].join('\n'));
  },
});
