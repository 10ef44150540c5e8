// Importing the index loads every domain module, so the route catalog is complete.
export * from './zod.ts';
export * from './common.ts';
export * from './http.ts';
export * from './subjects.ts';
export * from './events.ts';
export * from './services.ts';
export * from './openapi.ts';
export * from './auth.ts';
export * from './webhook.ts';
export * from './integration.ts';
export * from './session.ts';
export * from './agent.ts';
export * from './workflow.ts';
export * from './execution.ts';
