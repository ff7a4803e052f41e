import { Params } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { fastOr, WireReader } from '../../codec/wire.ts';

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

/** Params{max_memo_characters, tx_sig_limit, tx_size_cost_per_byte, sig_verify_cost_ed25519, sig_verify_cost_secp256k1}. */
function fastParams(bytes: Uint8Array): Params {
  const r = new WireReader(bytes);
  const p: Params = { maxMemoCharacters: 0n, txSigLimit: 0n, txSizeCostPerByte: 0n, sigVerifyCostEd25519: 0n, sigVerifyCostSecp256k1: 0n };
  while (r.next()) {
    if (r.field === 1) p.maxMemoCharacters = r.uint64();
    else if (r.field === 2) p.txSigLimit = r.uint64();
    else if (r.field === 3) p.txSizeCostPerByte = r.uint64();
    else if (r.field === 4) p.sigVerifyCostEd25519 = r.uint64();
    else if (r.field === 5) p.sigVerifyCostSecp256k1 = r.uint64();
    else r.skip();
  }
  return p;
}

const slowParams = (bytes: Uint8Array): Params => Params.decode(bytes);

/** Params.decode, without its reader's copy (no bytes fields to alias). */
export function decodeParams(bytes: Uint8Array): Params {
  return fastOr(fastParams, slowParams, bytes);
}
