import type { Express, Request } from 'express';
import { type Deps, oauth } from '@tt/domain';
import { rateLimit, type RateLimiter } from '@tt/http';
import { hostGuard } from '../edge/host-guard.js';
import { authorizeRoutes } from './authorize.js';
import { clientDocumentPorts } from './client-fetch.js';
import { metadataRoutes } from './metadata.js';
import type { OAuthSettings } from './settings.js';
import { tokenRoutes } from './token.js';

export { authenticateMcp, scopeStepUp } from './bearer.js';
export { OAuthConfigShape, oauthSettings, type OAuthSettings } from './settings.js';

/**
 * The sign-in's endpoints on the gateway: discovery documents, the consent page, token, registration and revocation.
 * The Host header is checked like on /mcp (the issuer may come from it); Origin is not, since browser clients call
 * the documents and the token endpoint cross-origin.
 */
export function oauthRoutes(app: Express, o: { deps: Deps; limiter: RateLimiter; settings: OAuthSettings; allowedHosts: readonly string[] }): void {
  const clients = oauth.createClientDirectory({ ports: clientDocumentPorts, allowPrivate: o.settings.allowPrivateClientIds });
  const guard = hostGuard(o.allowedHosts, { checkOrigin: false });
  app.use(['/.well-known', '/oauth'], guard);
  metadataRoutes(app, o.settings);
  authorizeRoutes(app, clients, o.deps, o.settings);
  const byAddress = rateLimit(o.limiter, (req: Request) => `oauth:ip:${req.ip ?? 'unknown'}`);
  tokenRoutes(app, clients, o.deps, byAddress);
}
