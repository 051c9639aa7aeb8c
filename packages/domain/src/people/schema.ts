import { Id, Plan, z } from '../shared/index.js';
import { Scope } from '../keys/index.js';

export const User = z
  .object({
    id: Id,
    name: z.string(),
    login: z.string(),
    role: z.string().openapi({ description: 'Job title' }),
    isAdmin: z.boolean(),
    teamIds: z.array(Id),
  })
  .openapi('User');
export type User = z.infer<typeof User>;

export const Team = z
  .object({
    id: Id,
    name: z.string(),
    description: z.string(),
    memberIds: z.array(Id),
    leadId: Id.nullable(),
  })
  .openapi('Team');
export type Team = z.infer<typeof Team>;

export const KeyInfo = z
  .object({
    user: User,
    workspace: z.object({ id: Id, name: z.string() }),
    key: z.object({
      id: Id,
      scopes: z.array(Scope),
      projectIds: z.array(Id).nullable().openapi({ description: 'null = all projects' }),
    }),
    rateLimitPerMinute: z.number().int(),
  })
  .openapi('KeyInfo');
export type KeyInfo = z.infer<typeof KeyInfo>;

export const Workspace = z
  .object({
    id: Id,
    name: z.string(),
    plan: Plan,
    timezone: z.string(),
    memberKeysEnabled: z.boolean(),
  })
  .openapi('Workspace');
export type Workspace = z.infer<typeof Workspace>;

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
