import { OpenApiGeneratorV31, type OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { registerRateLimitHeaders } from './http/rate-limit-doc.js';

/** The OpenAPI 3.1 document of /v1, generated from the same zod schemas that validate requests. */
export function buildOpenApi(registry: OpenAPIRegistry, serverUrl: string): object {
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'API key issued in the operator interface: `Authorization: Bearer <key>`',
  });
  registerRateLimitHeaders(registry);
  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Task Tracker API',
      version: '1.0.0',
      description:
        'JSON REST API of the task tracker. Timestamps are epoch milliseconds, days are YYYY-MM-DD, durations seconds. ' +
        'Every response carries x-ratelimit-limit, x-ratelimit-remaining and x-ratelimit-reset (seconds until the one-minute window resets), ' +
        'and the same figures as the IETF draft fields RateLimit-Policy (`"default";q=120;w=60`) and RateLimit (`"default";r=<remaining>;t=<seconds>`).',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Company', description: 'The key, users, teams and labels' },
      { name: 'Projects', description: 'Projects' },
      { name: 'Boards', description: 'Boards and their columns' },
      { name: 'Tasks', description: 'Tasks' },
      { name: 'Comments', description: 'Task comments' },
      { name: 'Notifications', description: "The key user's inbox" },
      { name: 'Time', description: 'Time logs and reports' },
      { name: 'Documents', description: 'Documentation spaces and pages' },
      { name: 'Meetings', description: 'Recorded meetings, summaries and transcripts' },
      { name: 'Activity', description: 'Who changed what, when, and through which key or agent' },
    ],
  });
}

/** The operator API's own document (served behind the operator token): what tests and operator tooling read. */
export function buildOperatorOpenApi(registry: OpenAPIRegistry, serverUrl: string): object {
  registry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', description: 'The operator token: `Authorization: Bearer <ADMIN_TOKEN>`' });
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Task Tracker operator API', version: '1.0.0', description: 'Workspaces, users, keys, access and test data for operators.' },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
  });
}
