import type { Express, RequestHandler } from 'express';
import { oauth, SCOPES } from '@tt/domain';
import { openCors } from '../edge/cors.js';
import { baseUrl, MCP_PATHS, type OAuthSettings } from './settings.js';

/** RFC 8414 metadata of the authorization server, which is the gateway itself (same origin). */
export function authorizationServerMetadata(base: string): Record<string, unknown> {
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...SCOPES],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}

/** RFC 9728 metadata of an MCP endpoint: the resource exactly as clients call it, and who issues its tokens. */
export function protectedResourceMetadata(base: string, path: string): Record<string, unknown> {
  return {
    resource: `${base}${path}`,
    authorization_servers: [base],
    scopes_supported: oauth.endpointScopes(path === '/mcp/readonly'),
    bearer_methods_supported: ['header'],
    resource_name: 'Task tracker MCP',
  };
}

/** Serves the discovery documents (computed per request when the base URL comes from the Host header). */
export function metadataRoutes(app: Express, s: OAuthSettings): void {
  const send = (doc: (base: string) => Record<string, unknown>): RequestHandler => (req, res) => {
    res.setHeader('cache-control', 'public, max-age=300');
    res.json(doc(baseUrl(req, s)));
  };
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    app.use(path, openCors);
    app.get(path, send(authorizationServerMetadata));
  }
  app.use('/.well-known/oauth-protected-resource', openCors);
  app.get('/.well-known/oauth-protected-resource', send((base) => protectedResourceMetadata(base, '/mcp')));
  for (const path of MCP_PATHS) app.get(`/.well-known/oauth-protected-resource${path}`, send((base) => protectedResourceMetadata(base, path)));
}
