import { z } from '../zod.js';
import { AutomationAction } from './admin.js';
import { Id, Ts } from './common.js';

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
