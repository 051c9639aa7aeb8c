import { Id, Ts, z } from '../shared/index.js';
import { ChecklistItemInput, Priority } from '../tasks/index.js';

export const AutomationAction = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('assign'), userIds: z.array(Id).min(1) }),
  z.strictObject({ type: z.literal('add_labels'), labels: z.array(z.string().trim().min(1).max(100)).min(1) }),
  z.strictObject({ type: z.literal('set_priority'), priority: Priority }),
  z.strictObject({ type: z.literal('move'), statusId: Id }),
  z.strictObject({ type: z.literal('add_checklist'), items: z.array(ChecklistItemInput).min(1) }),
  z.strictObject({ type: z.literal('comment'), text: z.string().trim().min(1).max(20_000) }),
]);
export type AutomationAction = z.infer<typeof AutomationAction>;

export const CreateAutomationInput = z
  .strictObject({
    trigger: z.literal('task_created'),
    statusId: Id.nullable().optional(),
    actions: z.array(AutomationAction).min(1).max(20),
    ownerId: Id.optional().openapi({ description: 'User the rule acts as; default the first workspace admin' }),
  })
  .openapi('CreateAutomationInput');
export type CreateAutomationInput = z.infer<typeof CreateAutomationInput>;

/** A board rule as the operator API shows it. */
export const Automation = z
  .object({
    id: Id,
    boardId: Id,
    trigger: z.literal('task_created'),
    statusId: Id.nullable().openapi({ description: 'Only tasks created in this column; null = any column' }),
    actions: z.array(AutomationAction),
    ownerId: Id.openapi({ description: 'The user the rule acts as' }),
    createdAt: Ts,
  })
  .openapi('Automation');
export type Automation = z.infer<typeof Automation>;
