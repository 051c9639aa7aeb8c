/** MCP sign-in (OAuth 2.1): clients (DCR and metadata documents), consent with an API key, codes, grants and tokens. */
export * from './schema.js';
export type * from './ports.js';
export * from './rules.js';
export * from './client-metadata.js';
export * from './clients.js';
export * from './grants.js';
export * from './auth.js';
