// The one query path REST, gRPC and the tx service share: descriptors, the app's Query with a height,
// and registered errors mapped to gRPC codes and HTTP statuses.
export * from './descriptors.ts';
export * from './query.ts';
export * from './simulate.ts';
export * from './status.ts';
