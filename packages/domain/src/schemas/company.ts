import { z } from '../zod.js';
import { Id, Ts } from './common.js';

export const PLANS = ['free', 'team', 'business'] as const;
export const Plan = z.enum(PLANS);
export type Plan = z.infer<typeof Plan>;

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

export const SCOPES = [
  'tasks:read',
  'tasks:write',
  'projects:write',
  'time:read',
  'time:write',
  'docs:read',
  'docs:write',
  'meetings:read',
] as const;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

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

export const ApiKey = z
  .object({
    id: Id,
    userId: Id,
    scopes: z.array(Scope),
    projectIds: z.array(Id).nullable(),
    expiresAt: Ts.nullable(),
    allowedIps: z.array(z.string()),
    createdAt: Ts,
  })
  .openapi('ApiKey');
export type ApiKey = z.infer<typeof ApiKey>;

export const IssuedKey = ApiKey.extend({ token: z.string().openapi({ description: 'Shown only once' }) }).openapi('IssuedKey');
