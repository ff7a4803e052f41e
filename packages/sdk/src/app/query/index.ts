export * from './grpc.ts';
export * from './pagination.ts';
