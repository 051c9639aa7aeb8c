/** Safe retries: Idempotency-Key (REST) and requestId (MCP) claims, fingerprints and replays. */
export * from './rules.js';
export * from './retries.js';
