/** Keys: who acts (the actor, scopes, what a key may see), authentication, and the operator's key verbs. */
export * from './schema.js';
export type * from './ports.js';
export * from './actor.js';
export * from './cidr.js';
export * from './auth.js';
export * from './admin.js';
