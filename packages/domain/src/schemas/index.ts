export * from './common.js';
export * from './company.js';
export * from './project.js';
export * from './task.js';
export * from './admin.js';
