import { Id, InputTs, Ts, z } from '../shared/index.js';
import { isValidIpRule } from './cidr.js';

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
