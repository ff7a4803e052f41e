// Gateway JSON, generically from the protobuf descriptors (cosmos-x-upgrade.md §6): the JSON the
// Cosmos SDK's grpc-gateway writes — every field, proto (snake_case) names, 64-bit integers as
// strings, bytes as base64, enums by name, RFC 3339 timestamps, Any as {"@type", …fields}, an absent
// message as null, an empty repeated field as []. Requests are built the gateway's way as well: path
// and query parameters name request fields (dotted for nested ones, e.g. `pagination.limit`).
import { ChaindError, errorMessage } from '@chaind/errors';
import {
  create,
  fromBinary,
  fromJson,
  ScalarType,
  toBinary,
  toJson,
  type DescEnum,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonValue,
  type Registry,
} from '@bufbuild/protobuf';
import { ParamError } from '../query/request.ts';

/** Go's zero time.Time, which the SDK's non-nullable timestamps (Plan.time) render when unset. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

/**
 * Message fields the Cosmos SDK declares `(gogoproto.nullable) = false`: unset, the gateway renders
 * their zero value instead of null. Our descriptors carry no gogoproto options, so they are listed.
 */
export const NON_NULLABLE: ReadonlySet<string> = new Set([
  // x/upgrade: `Timestamp time = 2 [(gogoproto.stdtime) = true, (gogoproto.nullable) = false]`
  'chain.upgrade.v1beta1.Plan.time',
  'cosmos.auth.v1beta1.QueryParamsResponse.params',
  'cosmos.bank.v1beta1.QueryParamsResponse.params',
]);

const WRITE = { alwaysEmitImplicit: true, useProtoFieldName: true } as const;

export class RenderError extends ChaindError<'render'> {
  override readonly name = 'RenderError';
  constructor(message: string, options?: ErrorOptions) {
    super('render', message, options);
  }
}

const isObject = (v: JsonValue | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const fullName = (f: DescField): string => `${f.parent.typeName}.${f.name}`;
const isWkt = (m: DescMessage): boolean => m.typeName.startsWith('google.protobuf.');

/** Decodes `bytes` as `schema` and renders the gateway JSON; unknown Any types are a RenderError. */
export function renderGatewayJson(schema: DescMessage, bytes: Uint8Array, registry: Registry): JsonObject {
  let json: JsonValue;
  try {
    json = toJson(schema, fromBinary(schema, bytes), { ...WRITE, registry });
  } catch (e) {
    throw new RenderError(`cannot render ${schema.typeName} as JSON: ${errorMessage(e)}`);
  }
  return normalizeMessage(schema, isObject(json) ? json : {}, registry);
}

/**
 * toJson omits unset message fields; the gateway writes null (or the zero value of a non-nullable
 * field). Rebuilt in declaration order, as the gateway writes them; nested messages and the
 * contents of Any values alike.
 */
function normalizeMessage(desc: DescMessage, json: JsonObject, registry: Registry): JsonObject {
  const out: JsonObject = {};
  for (const f of desc.fields) {
    const v = json[f.name];
    if (v === undefined) {
      // an unset oneof member is not written at all
      if (f.oneof === undefined) out[f.name] = NON_NULLABLE.has(fullName(f)) && f.message !== undefined ? zeroValue(f.message, registry) : null;
      continue;
    }
    if (f.fieldKind === 'message') out[f.name] = normalizeValue(f.message, v, registry);
    else if (f.fieldKind === 'list' && f.listKind === 'message' && Array.isArray(v)) out[f.name] = v.map((x) => normalizeValue(f.message, x, registry));
    else if (f.fieldKind === 'map' && f.mapKind === 'message' && isObject(v)) {
      out[f.name] = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalizeValue(f.message, x, registry)]));
    } else out[f.name] = v;
  }
  return out;
}

function normalizeValue(desc: DescMessage, v: JsonValue, registry: Registry): JsonValue {
  if (desc.typeName === 'google.protobuf.Any') return normalizeAny(v, registry);
  // the other well-known types have their own JSON (a string for Timestamp/Duration, …)
  if (isWkt(desc) || !isObject(v)) return v;
  return normalizeMessage(desc, v, registry);
}

function normalizeAny(v: JsonValue, registry: Registry): JsonValue {
  if (!isObject(v) || typeof v['@type'] !== 'string') return v;
  const url = v['@type'];
  const inner = registry.getMessage(url.slice(url.lastIndexOf('/') + 1));
  // a packed well-known type is {"@type", "value"}
  if (inner === undefined || isWkt(inner)) return v;
  return { '@type': url, ...normalizeMessage(inner, v, registry) };
}

function zeroValue(desc: DescMessage, registry: Registry): JsonValue {
  if (desc.typeName === 'google.protobuf.Timestamp') return ZERO_TIME;
  return normalizeValue(desc, toJson(desc, create(desc), { ...WRITE, registry }), registry);
}

/** Finds the field a parameter names: proto name or JSON name, dotted through nested messages. */
export function fieldPath(desc: DescMessage, name: string): DescField[] | undefined {
  const out: DescField[] = [];
  let msg: DescMessage | undefined = desc;
  for (const part of name.split('.')) {
    if (msg === undefined) return undefined;
    const f: DescField | undefined = msg.fields.find((x) => x.name === part || x.jsonName === part);
    if (f === undefined) return undefined;
    out.push(f);
    msg = f.fieldKind === 'message' && !isWkt(f.message) ? f.message : undefined;
  }
  return out;
}

const BOOLS: Readonly<Record<string, boolean>> = {
  true: true,
  True: true,
  TRUE: true,
  t: true,
  T: true,
  '1': true,
  false: false,
  False: false,
  FALSE: false,
  f: false,
  F: false,
  '0': false,
};
const INTEGER = /^-?[0-9]+$/;
const INT32_TYPES: ReadonlySet<ScalarType> = new Set([ScalarType.INT32, ScalarType.UINT32, ScalarType.SINT32, ScalarType.FIXED32, ScalarType.SFIXED32]);
const INT64_TYPES: ReadonlySet<ScalarType> = new Set([ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64]);

function scalarParam(name: string, t: ScalarType, raw: string): JsonValue {
  if (t === ScalarType.BOOL) {
    if (!Object.hasOwn(BOOLS, raw)) throw new ParamError(`invalid value "${raw}" for parameter ${name}: expected true or false`);
    return BOOLS[raw];
  }
  if (INT32_TYPES.has(t) || INT64_TYPES.has(t)) {
    if (!INTEGER.test(raw)) throw new ParamError(`invalid value "${raw}" for parameter ${name}: expected an integer`);
    // fromJson checks the range; 64-bit values stay strings so they keep every digit
    return INT64_TYPES.has(t) ? raw : Number(raw);
  }
  if (t === ScalarType.DOUBLE || t === ScalarType.FLOAT) {
    if (raw.trim() === '' || (Number.isNaN(Number(raw)) && raw !== 'NaN'))
      throw new ParamError(`invalid value "${raw}" for parameter ${name}: expected a number`);
    return raw === 'NaN' || raw === 'Infinity' || raw === '-Infinity' ? raw : Number(raw);
  }
  // strings, and bytes as base64 (fromJson accepts the standard and the URL-safe alphabet)
  return raw;
}

function enumParam(name: string, e: DescEnum, raw: string): JsonValue {
  if (INTEGER.test(raw)) return Number(raw);
  if (e.values.some((v) => v.name === raw)) return raw;
  throw new ParamError(`invalid value "${raw}" for parameter ${name}: expected one of ${e.values.map((v) => v.name).join(', ')}`);
}

function leafParam(name: string, f: DescField, raw: string): JsonValue {
  switch (f.fieldKind) {
    case 'scalar':
      return scalarParam(name, f.scalar, raw);
    case 'enum':
      return enumParam(name, f.enum, raw);
    case 'list':
      if (f.listKind === 'scalar') return scalarParam(name, f.scalar, raw);
      if (f.listKind === 'enum') return enumParam(name, f.enum, raw);
      return raw;
    default:
      // a well-known type given as its JSON string (a timestamp, a duration)
      return raw;
  }
}

export type Params = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * Builds the request message from path parameters and query parameters, as grpc-gateway's
 * PopulateQueryParameters: a query parameter naming no field is ignored, one naming a path-bound
 * field is overridden by the path; a bad value is a ParamError.
 */
export function buildRequest(schema: DescMessage, pathParams: Params, query: Params, registry: Registry): Uint8Array {
  const json: JsonObject = {};
  const set = (name: string, values: readonly string[]): void => {
    const path = fieldPath(schema, name);
    if (path === undefined) return;
    const leaf = path[path.length - 1];
    if (leaf.fieldKind === 'map' || (leaf.fieldKind === 'message' && !isWkt(leaf.message))) {
      throw new ParamError(`parameter ${name} names a message; set its fields instead (${name}.<field>)`);
    }
    let obj = json;
    for (const f of path.slice(0, -1)) {
      const next = obj[f.name];
      obj = isObject(next) ? next : (obj[f.name] = {});
    }
    if (leaf.fieldKind === 'list') obj[leaf.name] = values.map((v) => leafParam(name, leaf, v));
    else if (values.length !== 1) throw new ParamError(`parameter ${name} was given ${values.length} times; it takes one value`);
    else obj[leaf.name] = leafParam(name, leaf, values[0]);
  };
  const bound = new Set(Object.keys(pathParams));
  for (const [name, v] of Object.entries(query)) {
    if (v === undefined || bound.has(name)) continue;
    set(name, typeof v === 'string' ? [v] : v);
  }
  for (const [name, v] of Object.entries(pathParams)) {
    if (v !== undefined) set(name, typeof v === 'string' ? [v] : v);
  }
  try {
    return toBinary(schema, fromJson(schema, json, { registry }));
  } catch (e) {
    throw new ParamError(`invalid request parameters: ${errorMessage(e)}`);
  }
}
