export * from './doc.ts';
export * from './init-chain.ts';
export * from './json.ts';
export * from './parse.ts';
export * from './proto-json.ts';
export * from './validate.ts';
export * from './write.ts';
