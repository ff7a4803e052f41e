// Genesis sections in the Cosmos SDK's JSON (protojson: proto field names, every field written, absent
// messages as null, RFC 3339 timestamps, "1.5s" durations, Anys as {"@type", ...fields}) read and
// written through the generated (ts-proto / cosmjs-types) codecs, whose own JSON differs in exactly
// those points. The field list comes from the codec itself, so no module restates its fields.
import { errorMessage } from '@chaind/errors';
import { Buffer } from 'node:buffer';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { Duration } from 'cosmjs-types/google/protobuf/duration';
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import { jsonFields } from './json.ts';

/** The part of a generated message codec this layer uses. */
export interface ProtoCodec<T> {
  fromJSON(object: unknown): T;
  toJSON(message: T): unknown;
  fromPartial(object: never): T;
}

/** A protojson Any: the type URL, then the message's own fields (or "value": base64). */
export type AnyJSON = { '@type': string } & Record<string, unknown>;

type Snake<S extends string> = S extends `${infer H}${infer R}` ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${Snake<R>}` : S;

/** The protojson shape of a generated message type T (Timestamp and Duration alike are strings). */
export type ProtoJSON<T> = T extends bigint | Uint8Array | { seconds: bigint; nanos: number }
  ? string
  : T extends { typeUrl: string; value: Uint8Array }
    ? AnyJSON
    : T extends readonly (infer E)[]
      ? ProtoJSON<E>[]
      : T extends object
        ? { -readonly [K in keyof T & string as Snake<K>]-?: undefined extends T[K] ? ProtoJSON<Exclude<T[K], undefined>> | null : ProtoJSON<T[K]> }
        : T extends number
          ? `${number}` extends `${T}`
            ? number
            : string // an enum (its members are number literals), by name
          : T;

/** How the well-known types and Anys are written and read; errors thrown here are prefixed with the path. */
export interface ProtoJsonOptions {
  /** The error for a path and its problem: each module keeps its own error class. */
  readonly fail: (detail: string) => Error;
  readonly timestamp: { toJSON(t: Timestamp): string; fromJSON(s: string): Timestamp };
  readonly duration: { toJSON(d: Duration): string; fromJSON(s: string): Duration };
  readonly any: { toJSON(a: Any): AnyJSON; fromJSON(v: unknown, where: string): Any };
}

type Node =
  | { readonly kind: 'string' | 'boolean' | 'int64' | 'number' | 'enum' | 'bytes' | 'timestamp' | 'duration' | 'any' | 'raw' }
  | { readonly kind: 'list'; readonly of: Node }
  | { readonly kind: 'message'; readonly fields: readonly Field[] };
interface Field {
  /** The generated property (and ts-proto JSON) name, lowerCamelCase. */
  readonly name: string;
  /** The proto field name protojson writes. */
  readonly json: string;
  readonly node: Node;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// proto field names (protojson) ↔ lowerCamelCase JSON names (ts-proto), as protoc derives the latter
/** A generated field name's proto field name: votingPeriod → voting_period. */
export const protoName = (k: string): string => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (k: string): string => k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
function rekey(v: unknown, f: (k: string) => string): unknown {
  if (Array.isArray(v)) return v.map((x) => rekey(x, f));
  if (!isObject(v)) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k === '@type' ? k : f(k), rekey(x, f)]));
}
/** Every key of a JSON value (at any depth) as its proto field name; "@type" stays. */
export const protoNames = (v: unknown): unknown => rekey(v, protoName);
/** Every key of a JSON value (at any depth) as its lowerCamelCase JSON name; "@type" stays. */
export const jsonNames = (v: unknown): unknown => rekey(v, camel);

const at = (v: unknown, path: readonly (string | 0)[]): unknown => path.reduce<unknown>((x, k) => (x as Record<string | number, unknown>)[k], v);
const nest = (path: readonly (string | 0)[], leaf: unknown): unknown => path.reduceRight((x, k) => (k === 0 ? [x] : { [k]: x }), leaf);

/**
 * The field tree of a codec's message, found by asking the codec: fromPartial fills every field with its
 * default (a message field stays undefined until given {}, so it is probed with one), and toJSON tells an
 * enum (a name) from a number and a Timestamp (a string) from a Duration ({seconds, nanos}); an Any is
 * {typeUrl, value}. A scalar list's element, or a oneof scalar, is passed through unchecked (gov has neither).
 */
function describe<T>(codec: ProtoCodec<T>): Node {
  const partial = codec.fromPartial as (o: unknown) => T;
  const probe = (path: readonly (string | 0)[], leaf: unknown): { msg: unknown; json: unknown } => {
    const msg = partial(nest(path, leaf));
    return { msg: at(msg, path), json: at(codec.toJSON(msg), path) };
  };
  const message = (path: readonly (string | 0)[], depth: number): Node => {
    if (depth > 32) throw new Error(`proto JSON: ${path.join('.')} nests too deep (a recursive message type?)`);
    const leaf = {};
    const { msg, json } = probe(path, leaf);
    if (msg === leaf || !isObject(msg)) return { kind: 'raw' };
    const keys = Object.keys(msg).join();
    if (keys === 'typeUrl,value') return { kind: 'any' };
    if (keys === 'seconds,nanos') return { kind: typeof json === 'string' ? 'timestamp' : 'duration' };
    const fields = Object.entries(msg).map(([name, v]): Field => {
      const p = [...path, name];
      let node: Node;
      if (typeof v === 'string') node = { kind: 'string' };
      else if (typeof v === 'boolean') node = { kind: 'boolean' };
      else if (typeof v === 'bigint') node = { kind: 'int64' };
      else if (typeof v === 'number') node = { kind: typeof (json as Record<string, unknown>)[name] === 'string' ? 'enum' : 'number' };
      else if (v instanceof Uint8Array) node = { kind: 'bytes' };
      else if (Array.isArray(v)) node = { kind: 'list', of: message([...p, 0], depth + 1) };
      else node = message(p, depth + 1);
      return { name, json: protoName(name), node };
    });
    return { kind: 'message', fields };
  };
  return message([], 0);
}

const trees = new WeakMap<object, Node>();
function treeOf<T>(codec: ProtoCodec<T>): Node {
  let t = trees.get(codec);
  if (t === undefined) trees.set(codec, (t = describe(codec)));
  return t;
}

const ABSENT_AS_NULL = new Set<Node['kind']>(['message', 'timestamp', 'duration', 'any']);

/** A message as the SDK's JSON: the codec's own JSON for scalars and enums, protojson's forms for the rest. */
export function toProtoJSON<T>(codec: ProtoCodec<T>, message: T, o: ProtoJsonOptions): ProtoJSON<T> {
  const write = (node: Node, m: unknown, j: unknown): unknown => {
    switch (node.kind) {
      case 'message': {
        const out: Record<string, unknown> = {};
        for (const f of node.fields) {
          const v = (m as Record<string, unknown>)[f.name];
          out[f.json] = v == null && ABSENT_AS_NULL.has(f.node.kind) ? null : write(f.node, v, (j as Record<string, unknown> | undefined)?.[f.name]);
        }
        return out;
      }
      case 'list':
        return ((m as unknown[] | undefined) ?? []).map((x, i) => write(node.of, x, (j as unknown[] | undefined)?.[i]));
      case 'timestamp':
        return o.timestamp.toJSON(m as Timestamp);
      case 'duration':
        return o.duration.toJSON(m as Duration);
      case 'any':
        return o.any.toJSON(m as Any);
      default:
        return j;
    }
  };
  return write(treeOf(codec), message, codec.toJSON(message)) as ProtoJSON<T>;
}

const INT64 = /^-?[0-9]{1,20}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Reads the SDK's JSON into a message. Strict: an unknown key at any depth, or a value of the wrong
 * type, is an error naming its path (`where` prefixes it; the root is called "genesis" when it is '').
 * null is absence for messages and lists; a field absent at the root takes its value in `defaults`.
 */
export function fromProtoJSON<T>(codec: ProtoCodec<T>, json: unknown, where: string, o: ProtoJsonOptions, defaults?: T): T {
  const { object, array, string, boolean } = jsonFields({ fail: o.fail, nullIsAbsent: true });
  const join = (w: string, k: string): string => (w === '' ? k : `${w}.${k}`);
  const guarded = <R>(w: string, f: () => R): R => {
    try {
      return f();
    } catch (e) {
      throw o.fail(`${w}: ${errorMessage(e)}`);
    }
  };
  const wkt = (t: Timestamp | Duration): { seconds: string; nanos: number } => ({ seconds: t.seconds.toString(), nanos: t.nanos });
  const fill = defaults === undefined ? undefined : (toProtoJSON(codec, defaults, o) as Record<string, unknown>);

  // → the codec's own JSON (lowerCamelCase keys; Timestamps and Durations as {seconds, nanos}, which it reads exactly)
  const read = (node: Node, v: unknown, w: string, root: boolean): unknown => {
    switch (node.kind) {
      case 'message': {
        const names = node.fields.map((f) => f.json);
        const obj = object(v, w === '' ? 'genesis' : w, names);
        const out: Record<string, unknown> = {};
        for (const f of node.fields) {
          const x = obj[f.json] === undefined && root && fill !== undefined ? fill[f.json] : obj[f.json];
          if (x === undefined || (x === null && ABSENT_AS_NULL.has(f.node.kind))) continue;
          out[f.name] = read(f.node, x, join(w, f.json), false);
        }
        return out;
      }
      case 'list':
        return array(v, w).map((x, i) => read(node.of, x, `${w}[${i}]`, false));
      case 'string':
        return string(v, w);
      case 'boolean':
        return boolean(v, w, false);
      case 'int64':
        if (typeof v !== 'string' || !INT64.test(v) || BigInt(v) >= 2n ** 64n || BigInt(v) < -(2n ** 63n))
          throw o.fail(`${w} must be a 64-bit integer as a decimal string`);
        return v;
      case 'enum':
        if (typeof v !== 'string' && !Number.isInteger(v)) throw o.fail(`${w} must be an enum value name`);
        return v;
      case 'number':
        if (typeof v !== 'number' || !Number.isFinite(v)) throw o.fail(`${w} must be a number`);
        return v;
      case 'bytes':
        if (typeof v !== 'string' || !BASE64.test(v)) throw o.fail(`${w} must be base64`);
        return v;
      case 'timestamp': {
        const s = string(v, w);
        return wkt(guarded(w, () => o.timestamp.fromJSON(s)));
      }
      case 'duration': {
        const s = string(v, w);
        return wkt(guarded(w, () => o.duration.fromJSON(s)));
      }
      case 'any': {
        const any = o.any.fromJSON(v, w);
        return { typeUrl: any.typeUrl, value: Buffer.from(any.value).toString('base64') };
      }
      case 'raw':
        return v;
    }
  };
  return codec.fromJSON(read(treeOf(codec), json, where, true));
}
