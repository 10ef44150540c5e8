// Importing the index loads every domain module, so the route catalog is complete.
export * from './zod.ts';
export * from './common.ts';
export * from './http.ts';
export * from './subjects.ts';
export * from './events.ts';
export * from './services.ts';
export * from './openapi.ts';
export * from './auth.ts';
