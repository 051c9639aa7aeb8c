import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

type Header = { description: string; schema: { type: 'string' | 'integer'; minimum?: number; examples?: string[] } };

const integer = { type: 'integer' as const, minimum: 0 };

/** The rate-limit response headers, described once as components and referenced from every operation. */
const HEADERS: Record<string, Header> = {
  'RateLimit-Policy': {
    description: 'The quota policy (IETF draft-ietf-httpapi-ratelimit-headers): `"default";q=<requests>;w=60` (a one-minute window per key).',
    schema: { type: 'string', examples: ['"default";q=120;w=60'] },
  },
  RateLimit: {
    description: 'What is left of the policy (IETF draft): `"default";r=<remaining>;t=<seconds until the window resets>`.',
    schema: { type: 'string', examples: ['"default";r=119;t=60'] },
  },
  'x-ratelimit-limit': { description: 'Requests allowed per minute for this key.', schema: integer },
  'x-ratelimit-remaining': { description: 'Requests left in the current one-minute window.', schema: integer },
  'x-ratelimit-reset': { description: 'Seconds until the current window resets (a delta, not a timestamp).', schema: integer },
};

const RETRY_AFTER: Header = { description: 'Seconds to wait before retrying.', schema: integer };

/** Registers the header components; call once per OpenAPI document. */
export function registerRateLimitHeaders(registry: OpenAPIRegistry): void {
  for (const [name, header] of Object.entries(HEADERS)) registry.registerComponent('headers', name, header);
  registry.registerComponent('headers', 'Retry-After', RETRY_AFTER);
}

/**
 * Adds the rate-limit headers to an operation's responses: every answer after the limiter carries them (the 429 too,
 * with Retry-After). Not marked required, because a body that fails to parse is answered before the limiter runs.
 */
export function describeRateLimit(responses: Record<string, { description: string; headers?: Record<string, unknown> }>): void {
  const refs = Object.fromEntries(Object.keys(HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]));
  for (const [code, r] of Object.entries(responses)) {
    r.headers = { ...r.headers, ...refs, ...(code === '429' ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : {}) };
  }
}
