import { isValidIpRule } from '../rules/cidr.js';
import { z } from '../zod.js';
import { Id, InputTs } from './common.js';
import { Plan, Scope } from './company.js';
import { ChecklistItemInput, Priority } from './task.js';

const name = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

const timezone = z.string().refine((tz) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}, 'must be an IANA time zone such as Europe/Moscow');

export const CreateWorkspaceInput = z
  .strictObject({ name, plan: Plan.default('business'), timezone: timezone.default('Europe/Moscow') })
  .openapi('CreateWorkspaceInput');
export type CreateWorkspaceInput = z.infer<typeof CreateWorkspaceInput>;

export const UpdateWorkspaceInput = z
  .strictObject({ name: name.optional(), plan: Plan.optional(), memberKeysEnabled: z.boolean().optional(), timezone: timezone.optional() })
  .openapi('UpdateWorkspaceInput');
export type UpdateWorkspaceInput = z.infer<typeof UpdateWorkspaceInput>;

export const CreateUserInput = z
  .strictObject({
    name,
    login: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/, 'must be letters, digits, dots, dashes or underscores')
      .transform((s) => s.toLowerCase()),
    role: z.string().max(200).default(''),
    isAdmin: z.boolean().default(false),
  })
  .openapi('CreateUserInput');
export type CreateUserInput = z.infer<typeof CreateUserInput>;

export const CreateTeamInput = z
  .strictObject({
    name,
    description: z.string().max(20_000).default(''),
    leadId: Id.nullable().optional(),
    memberIds: z.array(Id).max(1000).default([]),
  })
  .openapi('CreateTeamInput');
export type CreateTeamInput = z.infer<typeof CreateTeamInput>;

export const IssueKeyInput = z
  .strictObject({
    scopes: z.array(Scope).max(20).default([]),
    projectIds: z.array(Id).min(1, 'must name at least one project, or be null for all').nullable().default(null),
    expiresAt: InputTs.nullable().default(null),
    allowedIps: z
      .array(z.string().refine(isValidIpRule, 'must be an IPv4/IPv6 address or CIDR range'))
      .max(100)
      .default([]),
  })
  .openapi('IssueKeyInput');
export type IssueKeyInput = z.infer<typeof IssueKeyInput>;

export const UpdateKeyInput = z.strictObject({ expiresAt: InputTs.nullable() }).openapi('UpdateKeyInput');
export type UpdateKeyInput = z.infer<typeof UpdateKeyInput>;

export const BoardAccessInput = z
  .strictObject({ memberIds: z.array(Id).max(1000).nullable() })
  .openapi('BoardAccessInput');
export type BoardAccessInput = z.infer<typeof BoardAccessInput>;

export const AttachmentInput = z
  .strictObject({
    name: z.string().trim().min(1).max(500),
    size: z.number().int().min(0).max(10 * 1024 ** 3),
    type: z.string().min(1).max(200).regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a media type such as image/png'),
  })
  .openapi('AttachmentInput');
export type AttachmentInput = z.infer<typeof AttachmentInput>;

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
