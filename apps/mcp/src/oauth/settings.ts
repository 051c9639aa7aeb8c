import type { Request } from 'express';
import { z } from 'zod';

/** Variables of the sign-in, read by the MCP gateway (standalone and embedded). */
export const OAuthConfigShape = {
  /**
   * The gateway's public base URL behind a proxy (an origin such as https://mcp.example.com, no path): the issuer,
   * and `<base>/mcp` the resource. Unset: derived from each request's Host (checked by the host guard) and protocol.
   */
  MCP_PUBLIC_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === '' || /^https?:\/\/[^/?#]+\/?$/.test(v), 'must be an origin such as https://mcp.example.com (no path)'),
  /** true: client-id metadata documents may live on loopback and private addresses (tests, local development). */
  OAUTH_ALLOW_PRIVATE_CLIENT_IDS: z.enum(['true', 'false', '1', '0']).optional(),
};

export interface OAuthSettings {
  publicUrl?: string | undefined;
  allowPrivateClientIds: boolean;
}

export function oauthSettings(env: { MCP_PUBLIC_URL?: string | undefined; OAUTH_ALLOW_PRIVATE_CLIENT_IDS?: string | undefined }): OAuthSettings {
  const url = env.MCP_PUBLIC_URL?.replace(/\/+$/, '') || undefined;
  return { publicUrl: url, allowPrivateClientIds: env.OAUTH_ALLOW_PRIVATE_CLIENT_IDS === 'true' || env.OAUTH_ALLOW_PRIVATE_CLIENT_IDS === '1' };
}

/** The MCP endpoints a token may be for (RFC 8707 resource values). */
export const MCP_PATHS = ['/mcp', '/mcp/readonly'] as const;

/** The gateway's base URL as clients call it: the issuer of the sign-in and the origin of the resource. */
export const baseUrl = (req: Request, s: OAuthSettings): string => s.publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;

/** The protected resource metadata URL of an MCP path (RFC 9728 §3.1: the path after the well-known segment). */
export const resourceMetadataUrl = (req: Request, s: OAuthSettings, path: string): string => `${baseUrl(req, s)}/.well-known/oauth-protected-resource${path}`;
