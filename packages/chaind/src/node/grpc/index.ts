// The node's gRPC server and what the REST gateway shares with it (descriptors, error mapping, query path).
export * from './descriptors.ts';
export * from './query.ts';
export * from './server.ts';
export * from './status.ts';
