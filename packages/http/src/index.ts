export * from './errors.js';
export * from './auth.js';
export * from './rate-limit.js';
export * from './logging.js';
export * from './lifecycle.js';
export * from './runtime.js';
export * from './config.js';
export * from './metrics.js';
