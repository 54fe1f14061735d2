export * from './enums.js';
export * from './instant.js';
export * from './limits.js';
export * from './money.js';
export * from './rules.js';
export * from './schemas.js';
