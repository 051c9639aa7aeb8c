import { OpenApiGeneratorV31, type OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

/** The OpenAPI 3.1 document of /v1, generated from the same zod schemas that validate requests. */
export function buildOpenApi(registry: OpenAPIRegistry, serverUrl: string): object {
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'API key issued in the operator interface: `Authorization: Bearer <key>`',
  });
  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Task Tracker API',
      version: '1.0.0',
      description:
        'JSON REST API of the task tracker. Timestamps are epoch milliseconds, days are YYYY-MM-DD, durations seconds. ' +
        'Every response carries x-ratelimit-limit, x-ratelimit-remaining and x-ratelimit-reset (seconds until the one-minute window resets).',
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
    ],
  });
}
