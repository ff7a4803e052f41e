// The node's gRPC server (the query plumbing it shares with REST is in ../query/).
export * from './server.ts';
