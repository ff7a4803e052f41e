// Method parameters, decoded as CometBFT's JSON-RPC server decodes them (rpc/jsonrpc/server): JSON
// params through cmtjson (64-bit ints as decimal strings, []byte as base64, HexBytes as hex), and the
// GET URI form (bare integers, "quoted" strings, 0x-hex bytes). Each method declares its parameters
// by name, in positional order, with one of the kinds below.
import { Buffer } from 'node:buffer';
import { ParamError } from '../query/request.ts';
import { invalidParams } from './errors.ts';

/**
 * int: Go int64/int (a decimal string in JSON; bare integers also accepted, a leniency CometBFT lacks);
 * bool; string; bytes: Go []byte (base64 in JSON); hex: CometBFT HexBytes (hex in JSON).
 */
export type ParamKind = 'int' | 'bool' | 'string' | 'bytes' | 'hex';

interface KindTypes {
  int: bigint;
  bool: boolean;
  string: string;
  bytes: Uint8Array;
  hex: Uint8Array;
}

/** A method's parameters: name → kind, in positional order. */
export type ParamSpec = Readonly<Record<string, ParamKind>>;

/** The decoded arguments of a method: absent (or null) parameters are undefined, as Go's nil pointers / zero values. */
export type Args<P extends ParamSpec> = { readonly [K in keyof P]?: KindTypes[P[K]] };

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const DECIMAL = /^-?[0-9]+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

function int64(name: string, s: string): bigint {
  const v = BigInt(s);
  if (v < INT64_MIN || v > INT64_MAX) throw new ParamError(`${name}: ${s} is out of the int64 range`);
  return v;
}

function hexBytes(name: string, s: string): Uint8Array {
  if (!HEX.test(s)) throw new ParamError(`${name}: invalid hex string ${JSON.stringify(s)}`);
  return new Uint8Array(Buffer.from(s, 'hex'));
}

/** One JSON value as cmtjson decodes it into the parameter's Go type. */
function fromJSON(name: string, kind: ParamKind, v: unknown): KindTypes[ParamKind] | undefined {
  if (v === null || v === undefined) return undefined;
  switch (kind) {
    case 'int':
      if (typeof v === 'string' && DECIMAL.test(v)) return int64(name, v);
      if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
      throw new ParamError(`${name}: invalid 64-bit integer encoding ${JSON.stringify(v)}, expected a decimal string such as "5"`);
    case 'bool':
      if (typeof v === 'boolean') return v;
      throw new ParamError(`${name}: expected a boolean, got ${JSON.stringify(v)}`);
    case 'string':
      if (typeof v === 'string') return v;
      throw new ParamError(`${name}: expected a string, got ${JSON.stringify(v)}`);
    case 'bytes':
      if (typeof v !== 'string') throw new ParamError(`${name}: expected base64 bytes as a string, got ${JSON.stringify(v)}`);
      if (!BASE64.test(v)) throw new ParamError(`${name}: illegal base64 data ${JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v)}`);
      return new Uint8Array(Buffer.from(v, 'base64'));
    case 'hex':
      if (typeof v !== 'string') throw new ParamError(`${name}: expected hex bytes as a string, got ${JSON.stringify(v)}`);
      return hexBytes(name, v);
  }
}

/**
 * The JSON-RPC `params`: an object by name, or an array by position (unknown names are ignored, as
 * CometBFT does). Throws Invalid params (-32602) with the reason.
 */
export function decodeJSONParams<P extends ParamSpec>(spec: P, params: unknown): Args<P> {
  const names = Object.keys(spec);
  const out: Record<string, unknown> = {};
  try {
    if (params === undefined || params === null) return out as Args<P>;
    if (Array.isArray(params)) {
      if (params.length > names.length) throw new ParamError(`expected at most ${names.length} parameters (${names.join(', ')}), got ${params.length}`);
      params.forEach((v: unknown, i) => (out[names[i]] = fromJSON(names[i], spec[names[i]], v)));
    } else if (typeof params === 'object') {
      const o = params as Record<string, unknown>;
      for (const name of names) if (Object.hasOwn(o, name)) out[name] = fromJSON(name, spec[name], o[name]);
    } else {
      throw new ParamError(`unknown type for JSON params: ${typeof params}, expected an object or an array`);
    }
  } catch (e) {
    if (e instanceof ParamError) throw invalidParams(`error converting json params to arguments: ${e.message}`);
    throw e;
  }
  return out as Args<P>;
}

function parseJSONText(name: string, s: string): unknown {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    throw new ParamError(`${name}: ${JSON.stringify(s)} is neither a number, a "quoted string", 0x-hex nor JSON`);
  }
}

/** One URI query value, as `_nonJSONStringToArg` then `jsonStringToArg` read it. */
function fromURI(name: string, kind: ParamKind, s: string): KindTypes[ParamKind] | undefined {
  if (s === '') return undefined;
  const isHex = s.slice(0, 2).toLowerCase() === '0x';
  const quoted = s.length >= 2 && s.startsWith('"') && s.endsWith('"');
  if (kind === 'int' && DECIMAL.test(s)) return int64(name, s);
  if (isHex) {
    if (kind !== 'string' && kind !== 'bytes' && kind !== 'hex')
      throw new ParamError(`${name}: got a hex string arg, but expected ${kind === 'int' ? 'an integer' : 'a boolean'}`);
    const b = hexBytes(name, s.slice(2));
    return kind === 'string' ? Buffer.from(b).toString('utf8') : b;
  }
  // a quoted string for a byte parameter is its raw bytes (not base64): path="/x", data="key"
  if (quoted && (kind === 'bytes' || kind === 'hex')) {
    const v = parseJSONText(name, s);
    if (typeof v !== 'string') throw new ParamError(`${name}: expected a quoted string`);
    return new Uint8Array(Buffer.from(v, 'utf8'));
  }
  return fromJSON(name, kind, parseJSONText(name, s));
}

/** The GET form's query string (`/block?height=5`). Throws Invalid params (-32602) with the reason. */
export function decodeURIParams<P extends ParamSpec>(spec: P, query: URLSearchParams): Args<P> {
  const out: Record<string, unknown> = {};
  try {
    for (const name of Object.keys(spec)) out[name] = fromURI(name, spec[name], query.get(name) ?? '');
  } catch (e) {
    if (e instanceof ParamError) throw invalidParams(`error converting http params to arguments: ${e.message}`);
    throw e;
  }
  return out as Args<P>;
}
