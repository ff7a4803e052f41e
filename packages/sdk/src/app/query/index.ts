export * from './grpc.ts';
export * from './pagination.ts';
export * from './definition.ts';
