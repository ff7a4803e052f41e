import { Params } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { decodeAuthParams } from '../../codec/index.ts';

export { Params };

/** The Cosmos SDK's default auth params. */
export function defaultParams(): Params {
  return { maxMemoCharacters: 256n, txSigLimit: 7n, txSizeCostPerByte: 10n, sigVerifyCostEd25519: 590n, sigVerifyCostSecp256k1: 1000n };
}

/** Every param must be positive, as x/auth's Params.Validate; the message names the param (SDK texts). */
export function validateParams(p: Params): void {
  const checks: [bigint, string][] = [
    [p.maxMemoCharacters, 'invalid max memo characters'],
    [p.txSigLimit, 'invalid tx signature limit'],
    [p.txSizeCostPerByte, 'invalid tx size cost per byte'],
    [p.sigVerifyCostEd25519, 'invalid ED25519 signature verification cost'],
    [p.sigVerifyCostSecp256k1, 'invalid SECK256k1 signature verification cost'],
  ];
  for (const [v, what] of checks) {
    if (v <= 0n || v > 0xffffffffffffffffn) throw new Error(`${what}: ${v}`);
  }
}

/** Params.decode, fast. */
export function decodeParams(bytes: Uint8Array): Params {
  return decodeAuthParams(bytes);
}
