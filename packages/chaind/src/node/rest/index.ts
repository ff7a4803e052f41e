// The node's REST server (Cosmos gateway JSON over the one query path).
export * from './gateway-json.ts';
export * from './routes.ts';
export * from './server.ts';
