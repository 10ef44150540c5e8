export * from './ports.ts';
export * from './process.ts';
export * from './infra.ts';
export * from './services.ts';
export * from './client.ts';
export * from './stack.ts';
