// Fast codecs for the messages of every transaction, byte for byte and value for value what
// cosmjs-types gives (codec.test.ts compares them). Decoders fall back to cosmjs-types for whatever
// the strict wire reader leaves alone (see wire.ts), so results and errors stay cosmjs-types' own.
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import { AuthInfo, SignDoc, TxBody, TxRaw, type Fee, type ModeInfo, type SignerInfo } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { Any as AnyCodec, type Any } from 'cosmjs-types/google/protobuf/any';
import { EMPTY_BYTES, NotFast, WireReader, WireWriter, asciiLength, fastOr, lenFieldSize, u64Size } from './wire.ts';

const notFast = new NotFast('not on the fast path');

/** Any{type_url = 1, value = 2} from a reader over its payload. */
export function readAny(r: WireReader): Any {
  let typeUrl = '';
  let value: Uint8Array = EMPTY_BYTES;
  while (r.next()) {
    if (r.field === 1) typeUrl = r.string();
    else if (r.field === 2) value = r.bytes();
    else r.skip();
  }
  return { typeUrl, value };
}

/** Coin{denom = 1, amount = 2} from a reader over its payload. */
export function readCoin(r: WireReader): Coin {
  let denom = '';
  let amount = '';
  while (r.next()) {
    if (r.field === 1) denom = r.string();
    else if (r.field === 2) amount = r.string();
    else r.skip();
  }
  return { denom, amount };
}

function fastTxRaw(bytes: Uint8Array): TxRaw {
  const r = WireReader.of(bytes);
  const m: TxRaw = { bodyBytes: EMPTY_BYTES, authInfoBytes: EMPTY_BYTES, signatures: [] };
  while (r.next()) {
    if (r.field === 1) m.bodyBytes = r.bytes();
    else if (r.field === 2) m.authInfoBytes = r.bytes();
    else if (r.field === 3) m.signatures.push(r.bytes());
    else r.skip();
  }
  return m;
}

/** `bytes` must be private (a decoded TxRaw's field): decoded bytes fields are views of it. */
function fastTxBody(bytes: Uint8Array): TxBody {
  const r = new WireReader(bytes);
  const m: TxBody = {
    messages: [],
    memo: '',
    timeoutHeight: 0n,
    unordered: false,
    timeoutTimestamp: undefined,
    extensionOptions: [],
    nonCriticalExtensionOptions: [],
  };
  while (r.next()) {
    switch (r.field) {
      case 1:
        m.messages.push(readAny(r.sub()));
        break;
      case 2:
        m.memo = r.string();
        break;
      case 3:
        m.timeoutHeight = r.uint64();
        break;
      case 4:
        m.unordered = r.bool();
        break;
      case 5:
        throw notFast; // timeout_timestamp: rare, and refused by the ante handler anyway
      case 1023:
        m.extensionOptions.push(readAny(r.sub()));
        break;
      case 2047:
        m.nonCriticalExtensionOptions.push(readAny(r.sub()));
        break;
      default:
        r.skip();
    }
  }
  return m;
}

function readModeInfo(r: WireReader): ModeInfo {
  const m: ModeInfo = { single: undefined, multi: undefined };
  while (r.next()) {
    if (r.field === 1) {
      const s = r.sub();
      let mode = 0;
      while (s.next()) {
        if (s.field === 1) mode = s.enum();
        else s.skip();
      }
      m.single = { mode };
    } else if (r.field === 2)
      throw notFast; // multisig: not supported, the ante handler refuses it
    else r.skip();
  }
  return m;
}

function readSignerInfo(r: WireReader): SignerInfo {
  const m: SignerInfo = { publicKey: undefined, modeInfo: undefined, sequence: 0n };
  while (r.next()) {
    if (r.field === 1) m.publicKey = readAny(r.sub());
    else if (r.field === 2) m.modeInfo = readModeInfo(r.sub());
    else if (r.field === 3) m.sequence = r.uint64();
    else r.skip();
  }
  return m;
}

function readFee(r: WireReader): Fee {
  const m: Fee = { amount: [], gasLimit: 0n, payer: '', granter: '' };
  while (r.next()) {
    if (r.field === 1) m.amount.push(readCoin(r.sub()));
    else if (r.field === 2) m.gasLimit = r.uint64();
    else if (r.field === 3) m.payer = r.string();
    else if (r.field === 4) m.granter = r.string();
    else r.skip();
  }
  return m;
}

/** `bytes` must be private, as for fastTxBody. */
function fastAuthInfo(bytes: Uint8Array): AuthInfo {
  const r = new WireReader(bytes);
  const m: AuthInfo = { signerInfos: [], fee: undefined, tip: undefined };
  while (r.next()) {
    if (r.field === 1) m.signerInfos.push(readSignerInfo(r.sub()));
    else if (r.field === 2) m.fee = readFee(r.sub());
    else if (r.field === 3)
      throw notFast; // tip: deprecated, rare
    else r.skip();
  }
  return m;
}

const slowTxRaw = (b: Uint8Array): TxRaw => TxRaw.decode(b);
const slowTxBody = (b: Uint8Array): TxBody => TxBody.decode(b);
const slowAuthInfo = (b: Uint8Array): AuthInfo => AuthInfo.decode(b);

/** TxRaw.decode, fast. */
export function decodeTxRawMessage(bytes: Uint8Array): TxRaw {
  return fastOr(fastTxRaw, slowTxRaw, bytes);
}

/** TxBody.decode of a decoded TxRaw's body bytes (private to the decode), fast. */
export function decodeTxBodyMessage(bytes: Uint8Array): TxBody {
  return fastOr(fastTxBody, slowTxBody, bytes);
}

/** AuthInfo.decode of a decoded TxRaw's auth-info bytes (private to the decode), fast. */
export function decodeAuthInfoMessage(bytes: Uint8Array): AuthInfo {
  return fastOr(fastAuthInfo, slowAuthInfo, bytes);
}

// ---- encoders ----

/** Size of Any{typeUrl, value} (without its own tag and length). */
export function anySize(a: Any): number {
  const t = asciiLength(a.typeUrl);
  return (t === 0 ? 0 : lenFieldSize(t)) + (a.value.length === 0 ? 0 : lenFieldSize(a.value.length));
}

export function writeAny(w: WireWriter, a: Any): void {
  if (a.typeUrl.length > 0) w.ascii(0x0a, a.typeUrl);
  if (a.value.length > 0) w.bytes(0x12, a.value);
}

function fastAny(a: Any): Uint8Array {
  const w = new WireWriter(anySize(a));
  writeAny(w, a);
  return w.finish();
}
const slowAny = (a: Any): Uint8Array => AnyCodec.encode(a).finish();

/** Any.encode(a).finish(). */
export function encodeAnyMessage(a: Any): Uint8Array {
  return fastOr(fastAny, slowAny, a);
}

function fastSignDoc(d: SignDoc): Uint8Array {
  const { bodyBytes, authInfoBytes, chainId, accountNumber } = d;
  const c = asciiLength(chainId);
  const size =
    (bodyBytes.length === 0 ? 0 : lenFieldSize(bodyBytes.length)) +
    (authInfoBytes.length === 0 ? 0 : lenFieldSize(authInfoBytes.length)) +
    (c === 0 ? 0 : lenFieldSize(c)) +
    (accountNumber === 0n ? 0 : 1 + u64Size(accountNumber));
  const w = new WireWriter(size);
  if (bodyBytes.length > 0) w.bytes(0x0a, bodyBytes);
  if (authInfoBytes.length > 0) w.bytes(0x12, authInfoBytes);
  if (c > 0) w.ascii(0x1a, chainId);
  if (accountNumber !== 0n) {
    w.byte(0x20);
    w.u64(accountNumber);
  }
  return w.finish();
}
const slowSignDoc = (d: SignDoc): Uint8Array => SignDoc.encode(d).finish();

/** SignDoc.encode({bodyBytes, authInfoBytes, chainId, accountNumber}).finish(). */
export function encodeSignDocMessage(bodyBytes: Uint8Array, authInfoBytes: Uint8Array, chainId: string, accountNumber: bigint): Uint8Array {
  return fastOr(fastSignDoc, slowSignDoc, { bodyBytes, authInfoBytes, chainId, accountNumber });
}
