import { z } from '../zod.js';
import { oneLine } from './one-line.js';
import { CreateTaskInput } from './task.js';

/**
 * A task made from a meeting agreement: the body of POST /tasks, with what the agreement supplies made optional.
 * title defaults to the agreement's text, assignees to its owner (when the name matches one person), dueDate to its
 * due day, and the place to the meeting's project.
 */
export const TaskFromAgreementInput = CreateTaskInput.extend({
  title: oneLine(500).optional().openapi({ description: "Default: the agreement's text (first 500 characters, one line)" }),
}).openapi('TaskFromAgreementInput');
export type TaskFromAgreementInput = z.infer<typeof TaskFromAgreementInput>;
