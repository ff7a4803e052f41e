export * from './decode.ts';
export * from './pubkey.ts';
export * from './sign.ts';
export * from './amino-json.ts';
