import { Id, Ts, z } from '../shared/index.js';
import { Scope } from '../keys/index.js';

/** A grant as the operator API shows it: who signed in with which key, into which client, with which rights. */
export const OAuthGrant = z
  .object({
    id: Id,
    userId: Id,
    keyId: Id,
    clientId: z.string().openapi({ description: 'The registered client id, or the URL of its client-id metadata document' }),
    clientName: z.string(),
    scopes: z.array(Scope),
    createdAt: Ts,
  })
  .openapi('OAuthGrant');
export type OAuthGrant = z.infer<typeof OAuthGrant>;
