export * from './metrics.ts';
export * from './server.ts';
export * from './endpoint.ts';
