// The ante handler: the Cosmos SDK's default decorator chain for secp256k1 txs signed with SIGN_MODE_DIRECT
// or SIGN_MODE_LEGACY_AMINO_JSON.
// Every check throws its own registered root error; an ante failure leaves no state behind (BaseApp
// drops the ante branch), and on success its writes (fee, public keys, sequences) outlive a failing message.
import { Buffer } from 'node:buffer';
import type { Coin as ProtoCoin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import { SignMode, signModeToJSON } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { AnteHandler } from '../../app/application.ts';
import type { Context } from '../../app/context.ts';
import { CodedError, errors } from '../../app/errors.ts';
import type { MsgRouter } from '../../app/router.ts';
import { rawAddressFromPublicKey, signBytesDigest, verifyDigestSignature, type VerifiedSignatures } from '../../crypto/index.ts';
import { equalBytes } from '../../bytes/index.ts';
import { aminoSignBytes } from '../../tx/amino-json.ts';
import type { DecodedTx } from '../../tx/decode.ts';
import { decodeSecp256k1PubKey, encodeSecp256k1PubKey } from '../../tx/pubkey.ts';
import { signDocDigest } from '../../tx/sign.ts';
import type { Account } from './account.ts';
import { coinsString, isAnyGTE, isValidCoins, parseFeeCoins, parseGasPrices, requiredFees, type FeeCoin, type GasPrice } from './fee.ts';
import type { AccountKeeper } from './keeper.ts';
import type { Params } from './params.ts';
import { preverifiedSigner } from './preverify.ts';
import { requiredSigners, type Signer } from './signers.ts';

/**
 * What a missing signature would add to the tx when simulating: the amino StdSignature of a secp256k1 key
 * and a 64-byte signature (2 + 4 + 1 + 33 + 2 + 64 bytes) plus 6, as the SDK's ConsumeTxSizeGasDecorator.
 */
const SIMULATED_SIGNATURE_BYTES = 112n;

/** The SDK's MaxGasWanted: gas limits must fit an int64. */
const MAX_GAS_WANTED = (1n << 63n) - 1n;

/**
 * Moves `fee` (valid, non-zero coins with integer string amounts) from `payer` to the fee collector.
 * Throws `errors.insufficientFunds` when the payer cannot pay; other coded errors are wrapped in it.
 */
export type DeductFee = (ctx: Context, payer: string, fee: ProtoCoin[]) => void;

export interface AnteHandlerOptions {
  readonly accountKeeper: AccountKeeper;
  /** The app's message router: a tx's signers come from each message route's `signers`. */
  readonly msgRouter: MsgRouter;
  readonly deductFee: DeductFee;
  /** The node's minimum gas prices (decimal amounts, e.g. "0.025"), enforced in CheckTx only. */
  readonly minGasPrices?: readonly { readonly denom: string; readonly amount: string }[];
  /**
   * Signatures the node verified ahead (its worker threads): a triple found here exactly is not verified
   * again. Only saves time: the answer is the same either way.
   */
  readonly verifiedSignatures?: VerifiedSignatures;
}

/** ExtensionOptionsDecorator: no extension options are understood, so any critical one is refused. */
function rejectExtensionOptions(tx: DecodedTx): void {
  const opt = tx.body.extensionOptions[0];
  if (opt !== undefined) throw errors.unknownExtensionOptions.wrap(`unsupported extension option ${opt.typeUrl}`);
}

/** ValidateBasicDecorator (Tx.ValidateBasic): messages, gas, fee sign, signature counts. Returns the fee coins. */
function validateBasic(tx: DecodedTx, signers: readonly Signer[]): FeeCoin[] {
  if (tx.msgs.length === 0) throw errors.invalidRequest.wrap('must contain at least one message');
  if (tx.fee.gasLimit > MAX_GAS_WANTED) throw errors.invalidRequest.wrap(`invalid gas supplied; ${tx.fee.gasLimit} > ${MAX_GAS_WANTED}`);
  const fee = parseFeeCoins(tx.fee.amount);
  if (tx.body.unordered) throw errors.notSupported.wrap('unordered transactions are not supported');
  if (tx.body.timeoutTimestamp !== undefined) throw errors.notSupported.wrap('timeout_timestamp is not supported; use timeout_height');
  const sigs = tx.signatures.length;
  if (sigs === 0) throw errors.noSignatures.withText(errors.noSignatures.message);
  const infos = tx.authInfo.signerInfos.length;
  if (sigs !== infos) throw errors.unauthorized.wrap(`wrong number of signers; expected ${infos}, got ${sigs}`);
  if (signers.length !== sigs) throw errors.unauthorized.wrap(`wrong number of signers; expected ${signers.length}, got ${sigs}`);
  return fee;
}

/** ValidateSigCountDecorator: at most tx_sig_limit keys (multisig is not supported, so one key per signer). */
function checkSigCount(tx: DecodedTx, params: Params): void {
  const n = BigInt(tx.authInfo.signerInfos.length);
  if (n > params.txSigLimit) throw errors.tooManySignatures.wrap(`signatures: ${n}, limit: ${params.txSigLimit}`);
}

/** TxTimeoutHeightDecorator. */
function checkTimeoutHeight(ctx: Context, tx: DecodedTx): void {
  const timeout = tx.body.timeoutHeight;
  if (timeout > 0n && ctx.height > timeout) throw errors.txTimeoutHeight.wrap(`block height: ${ctx.height}, timeout height: ${timeout}`);
}

/** ValidateMemoDecorator; the length is in bytes, as Go's len(string). */
function checkMemo(tx: DecodedTx, params: Params): void {
  const len = BigInt(Buffer.byteLength(tx.body.memo, 'utf8'));
  if (len > params.maxMemoCharacters) {
    throw errors.memoTooLarge.wrap(`maximum number of characters is ${params.maxMemoCharacters} but received ${len} characters`);
  }
}

interface FeeStep {
  readonly ak: AccountKeeper;
  readonly deductFee: DeductFee;
  readonly gasPrices: readonly GasPrice[];
}

/** DeductFeeDecorator: positive gas, the node's minimum gas prices (CheckTx only), then the payer pays. */
function deductFees(ctx: Context, tx: DecodedTx, fee: readonly FeeCoin[], payerSigner: Signer, simulate: boolean, o: FeeStep): void {
  const gas = tx.fee.gasLimit;
  if (!simulate && ctx.height > 0n && gas === 0n) throw errors.invalidGasLimit.wrap('must provide positive gas');
  if (!simulate && (ctx.mode === 'check' || ctx.mode === 'recheck') && o.gasPrices.length > 0) {
    const required = requiredFees(o.gasPrices, gas);
    if (!isAnyGTE(fee, required)) throw errors.insufficientFee.wrap(`insufficient fees; got: ${coinsString(fee)} required: ${coinsString(required)}`);
  }
  if (tx.fee.granter !== '') throw errors.invalidRequest.wrap('fee grants are not enabled');
  const payer = payerSigner.address;
  if (!o.ak.hasAccountByAddress(ctx, payerSigner.bytes)) throw errors.unknownAddress.wrap(`fee payer address: ${payer} does not exist`);
  if (fee.some((c) => c.amount !== 0n)) {
    if (!isValidCoins(fee)) throw errors.insufficientFee.wrap(`invalid fee amount: ${coinsString(fee)}`);
    try {
      o.deductFee(
        ctx,
        payer,
        fee.map((c) => ({ denom: c.denom, amount: c.amount.toString() })),
      );
    } catch (e) {
      if (!(e instanceof CodedError) || errors.insufficientFunds.is(e) || errors.outOfGas.is(e)) throw e;
      throw errors.insufficientFunds.wrap(e.message);
    }
  }
  ctx.events.emit('tx', [
    ['fee', coinsString(fee)],
    ['fee_payer', payer],
  ]);
}

/**
 * SetPubKeyDecorator: each signer info's key must hash to its signer's address (not checked when
 * simulating) and the signer's account must exist; a key is stored on the account's first use.
 */
function setPubKeys(ctx: Context, tx: DecodedTx, signers: readonly Signer[], simulate: boolean, ak: AccountKeeper): Account[] {
  const accounts = tx.authInfo.signerInfos.map((si, i) => {
    const signer = signers[i];
    // pre-verification decoded and hashed this very key object already
    const pre = si.publicKey === undefined ? undefined : preverifiedSigner(tx, i);
    const known = pre !== undefined && pre.publicKey === si.publicKey;
    const key = si.publicKey === undefined ? undefined : known ? pre.pubkey : decodeSecp256k1PubKey(si.publicKey);
    if (key !== undefined && !simulate && !equalBytes(known ? pre.address : rawAddressFromPublicKey(key), signer.bytes)) {
      throw errors.invalidPubKey.wrap(`pubKey does not match signer address ${signer.address} with signer index: ${i}`);
    }
    let acc = ak.getAccountByAddress(ctx, signer.bytes);
    if (acc === undefined) throw errors.unknownAddress.wrap(`account ${signer.address} does not exist`);
    // stored with the sequence increment below: one account write per signer, not two
    if (key !== undefined && acc.pubKey === undefined) acc = { ...acc, pubKey: encodeSecp256k1PubKey(key) };
    return acc;
  });
  // indexable as tx.acc_seq='<addr>/<seq>' and tx.signature='<base64>', as in the SDK
  tx.authInfo.signerInfos.forEach((si, i) => ctx.events.emit('tx', [['acc_seq', `${signers[i].address}/${si.sequence}`]]));
  tx.signatures.forEach((sig) => ctx.events.emit('tx', [['signature', Buffer.from(sig.buffer, sig.byteOffset, sig.byteLength).toString('base64')]]));
  return accounts;
}

/** SigGasConsumeDecorator: sig_verify_cost_secp256k1 per signer, also when simulating. */
function consumeSigGas(ctx: Context, accounts: readonly Account[], simulate: boolean, params: Params): void {
  for (const acc of accounts) {
    if (acc.pubKey === undefined && !simulate) throw errors.invalidPubKey.wrap(`pubkey on account ${acc.address} is not set`);
    ctx.gasMeter.consume(params.sigVerifyCostSecp256k1, 'ante verify: secp256k1');
  }
}

/**
 * SigVerificationDecorator: the signer info's sequence must be the account's, and (unless simulating)
 * the signature must verify: SIGN_MODE_DIRECT over SignDoc{body, auth info, chain id, account number},
 * SIGN_MODE_LEGACY_AMINO_JSON over the StdSignDoc of the tx for the account's number and sequence.
 * RECHECK and PrepareProposal see only txs whose signatures this node's CheckTx verified, and a
 * signature cannot stop verifying: they skip the verification, as the SDK's decorator does on
 * ReCheckTx; FinalizeBlock verifies every signature.
 */
function verifySignatures(ctx: Context, tx: DecodedTx, accounts: readonly Account[], simulate: boolean, o: AnteHandlerOptions): void {
  tx.authInfo.signerInfos.forEach((si, i) => {
    const acc = accounts[i];
    if (si.sequence !== acc.sequence) throw errors.wrongSequence.wrap(`account sequence mismatch, expected ${acc.sequence}, got ${si.sequence}`);
    if (simulate) return;
    if (si.modeInfo?.multi !== undefined) throw errors.notSupported.wrap('multisig signatures are not supported');
    const mode = si.modeInfo?.single?.mode ?? SignMode.SIGN_MODE_UNSPECIFIED;
    if (mode !== SignMode.SIGN_MODE_DIRECT && mode !== SignMode.SIGN_MODE_LEGACY_AMINO_JSON) {
      throw errors.notSupported.wrap(`sign mode ${signModeToJSON(mode)} is not supported; only SIGN_MODE_DIRECT and SIGN_MODE_LEGACY_AMINO_JSON are`);
    }
    const stored = acc.pubKey as NonNullable<Account['pubKey']>;
    // pre-verification's key and sign bytes (direct mode only), when made from the same key, chain id and account number
    const pre = preverifiedSigner(tx, i);
    const reuse = pre !== undefined && pre.accountNumber === acc.accountNumber && pre.chainId === ctx.chainId && sameAny(stored, pre.publicKey);
    const key = reuse ? pre.pubkey : decodeSecp256k1PubKey(stored);
    if (ctx.mode === 'recheck' || ctx.mode === 'prepare') return;
    const digest =
      mode === SignMode.SIGN_MODE_LEGACY_AMINO_JSON
        ? signBytesDigest(aminoSignBytes(tx, o.msgRouter, ctx.chainId, acc.accountNumber, acc.sequence))
        : reuse
          ? pre.digest
          : signDocDigest(tx, ctx.chainId, acc.accountNumber);
    const signature = tx.signatures[i];
    const triple = { pubkey: key, digest, signature };
    // a tx in a block spends its sequence: its signature is not needed again, so the block frees its entry
    const known = ctx.mode === 'finalize' ? o.verifiedSignatures?.take(triple) : o.verifiedSignatures?.has(triple);
    if (known === true) return;
    if (!verifyDigestSignature(key, digest, signature)) {
      throw errors.unauthorized.wrap(
        `signature verification failed; please verify account number (${acc.accountNumber}), sequence (${acc.sequence}) and chain-id (${ctx.chainId})`,
      );
    }
    // what CheckTx verified itself (behind CometBFT, or a key only on chain) is likely in a coming block: its execution need not verify again
    if (ctx.mode === 'check') o.verifiedSignatures?.add(triple);
  });
}

/** Whether two Anys are the same type and bytes (then they decode to the same key). */
function sameAny(a: Any, b: Any): boolean {
  return a === b || (a.typeUrl === b.typeUrl && equalBytes(a.value, b.value));
}

/** IncrementSequenceDecorator (also stores a public key set on first use). */
function incrementSequences(ctx: Context, accounts: readonly Account[], signers: readonly Signer[], ak: AccountKeeper): void {
  for (let i = 0; i < accounts.length; i++) ak.updateAccount(ctx, { ...accounts[i], sequence: accounts[i].sequence + 1n }, signers[i].bytes);
}

/** The ante handler for `DecodedTx`s, checks in the Cosmos SDK's order. */
export function newAnteHandler(o: AnteHandlerOptions): AnteHandler<DecodedTx> {
  const ak = o.accountKeeper;
  const feeStep: FeeStep = { ak, deductFee: o.deductFee, gasPrices: parseGasPrices(o.minGasPrices ?? []) };
  return (ctx, tx, simulate) => {
    rejectExtensionOptions(tx);
    const { signers, payer } = requiredSigners(tx, o.msgRouter, ak);
    const fee = validateBasic(tx, signers);
    const params = ak.getParams(ctx);
    checkSigCount(tx, params);
    checkTimeoutHeight(ctx, tx);
    checkMemo(tx, params);
    ctx.gasMeter.consume(params.txSizeCostPerByte * BigInt(tx.size), 'txSize');
    // a simulated tx (CosmJS, `--gas auto`) has empty signatures: charge for the ones it will carry
    if (simulate) {
      for (let i = 0; i < signers.length; i++) {
        if ((tx.signatures[i]?.length ?? 0) === 0) ctx.gasMeter.consume(params.txSizeCostPerByte * SIMULATED_SIGNATURE_BYTES, 'txSize');
      }
    }
    // validateBasic refuses a tx without signers
    deductFees(ctx, tx, fee, payer as Signer, simulate, feeStep);
    const accounts = setPubKeys(ctx, tx, signers, simulate, ak);
    consumeSigGas(ctx, accounts, simulate, params);
    verifySignatures(ctx, tx, accounts, simulate, o);
    incrementSequences(ctx, accounts, signers, ak);
  };
}
