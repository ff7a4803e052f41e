// JSON schemas of the routes, derived from the same descriptors as the JSON itself, for the OpenAPI
// document at /swagger and for validating path and query parameters (ajv, before the handler).
import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { NON_NULLABLE, ZERO_TIME } from './gateway-json.ts';

export type JsonSchema = { readonly [k: string]: unknown };

const INT64: ReadonlySet<ScalarType> = new Set([ScalarType.INT64, ScalarType.SINT64, ScalarType.SFIXED64]);
const UINT64: ReadonlySet<ScalarType> = new Set([ScalarType.UINT64, ScalarType.FIXED64]);
const INT32: ReadonlySet<ScalarType> = new Set([ScalarType.INT32, ScalarType.SINT32, ScalarType.SFIXED32]);
const UINT32: ReadonlySet<ScalarType> = new Set([ScalarType.UINT32, ScalarType.FIXED32]);
const BOOL_VALUES = ['true', 'false', 'True', 'False', 'TRUE', 'FALSE', 't', 'f', 'T', 'F', '1', '0'];

/** A path or query parameter: always a string on the wire, checked against its field's type. */
function paramScalar(t: ScalarType): JsonSchema {
  if (INT64.has(t) || INT32.has(t)) return { type: 'string', pattern: '^-?[0-9]+$' };
  if (UINT64.has(t) || UINT32.has(t)) return { type: 'string', pattern: '^[0-9]+$' };
  if (t === ScalarType.BOOL) return { type: 'string', enum: BOOL_VALUES };
  // base64, standard or URL-safe alphabet (as the gateway decodes); a raw '+' in a URL reads as a space
  if (t === ScalarType.BYTES) return { type: 'string', pattern: '^[A-Za-z0-9+/_-]*={0,2}$', description: 'base64 (URL-encode it)' };
  return { type: 'string' };
}

function paramField(f: DescField): JsonSchema | undefined {
  switch (f.fieldKind) {
    case 'scalar':
      return paramScalar(f.scalar);
    case 'enum':
      return { type: 'string', enum: [...f.enum.values.map((v) => v.name), ...f.enum.values.map((v) => String(v.number))] };
    case 'list':
      if (f.listKind === 'scalar') return { type: 'array', items: paramScalar(f.scalar) };
      if (f.listKind === 'enum') return { type: 'array', items: { type: 'string', enum: f.enum.values.map((v) => v.name) } };
      return undefined;
    case 'message':
      if (f.message.typeName === 'google.protobuf.Timestamp') return { type: 'string', format: 'date-time' };
      if (f.message.typeName === 'google.protobuf.Duration') return { type: 'string', description: 'duration, e.g. "10s"' };
      return undefined;
    default:
      return undefined;
  }
}

/** The schema of a path parameter naming a top-level request field. */
export function pathParamSchema(desc: DescMessage, name: string): JsonSchema {
  const f = desc.fields.find((x) => x.name === name);
  if (f === undefined) throw new Error(`${desc.typeName} has no field ${name} for the path parameter`);
  const s = paramField(f);
  if (s === undefined || s.type !== 'string') throw new Error(`${desc.typeName}.${name} cannot be a path parameter`);
  return s;
}

/** Query parameters: every leaf field not bound by the path, dotted through nested messages. */
export function querySchema(desc: DescMessage, bound: ReadonlySet<string>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const walk = (m: DescMessage, prefix: string, seen: ReadonlySet<string>): void => {
    for (const f of m.fields) {
      const name = prefix + f.name;
      if (prefix === '' && bound.has(f.name)) continue;
      if (f.fieldKind === 'message' && !f.message.typeName.startsWith('google.protobuf.')) {
        if (!seen.has(f.message.typeName)) walk(f.message, `${name}.`, new Set([...seen, f.message.typeName]));
        continue;
      }
      const s = paramField(f);
      if (s !== undefined) properties[name] = s;
    }
  };
  walk(desc, '', new Set([desc.typeName]));
  return { type: 'object', properties };
}

function scalarJson(t: ScalarType): JsonSchema {
  if (INT64.has(t) || UINT64.has(t)) return { type: 'string', format: INT64.has(t) ? 'int64' : 'uint64' };
  if (INT32.has(t) || UINT32.has(t)) return { type: 'integer' };
  if (t === ScalarType.DOUBLE || t === ScalarType.FLOAT) return { type: 'number' };
  if (t === ScalarType.BOOL) return { type: 'boolean' };
  if (t === ScalarType.BYTES) return { type: 'string', format: 'byte' };
  return { type: 'string' };
}

const WKT_JSON: Readonly<Record<string, JsonSchema>> = {
  'google.protobuf.Timestamp': { type: 'string', format: 'date-time', example: ZERO_TIME },
  'google.protobuf.Duration': { type: 'string', example: '10s' },
  'google.protobuf.Any': {
    type: 'object',
    properties: { '@type': { type: 'string', example: '/cosmos.auth.v1beta1.BaseAccount' } },
    additionalProperties: true,
    description: 'The packed message: "@type" and its fields',
  },
};

/** The gateway JSON of a message (OpenAPI 3.0: `nullable` for message fields that may be null). */
export function responseSchema(desc: DescMessage, seen: ReadonlySet<string> = new Set()): JsonSchema {
  const wkt = WKT_JSON[desc.typeName];
  if (wkt !== undefined) return wkt;
  if (seen.has(desc.typeName)) return { type: 'object', description: desc.typeName };
  const inner = new Set([...seen, desc.typeName]);
  const value = (f: DescField): JsonSchema => {
    switch (f.fieldKind) {
      case 'scalar':
        return scalarJson(f.scalar);
      case 'enum':
        return { type: 'string', enum: f.enum.values.map((v) => v.name) };
      case 'message':
        return NON_NULLABLE.has(`${desc.typeName}.${f.name}`) ? responseSchema(f.message, inner) : { ...responseSchema(f.message, inner), nullable: true };
      case 'list':
        if (f.listKind === 'scalar') return { type: 'array', items: scalarJson(f.scalar) };
        if (f.listKind === 'enum') return { type: 'array', items: { type: 'string', enum: f.enum.values.map((v) => v.name) } };
        return { type: 'array', items: responseSchema(f.message, inner) };
      case 'map':
        if (f.mapKind === 'scalar') return { type: 'object', additionalProperties: scalarJson(f.scalar) };
        if (f.mapKind === 'enum') return { type: 'object', additionalProperties: { type: 'string' } };
        return { type: 'object', additionalProperties: responseSchema(f.message, inner) };
    }
  };
  return { type: 'object', properties: Object.fromEntries(desc.fields.map((f) => [f.name, value(f)])) };
}

export const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'An error, as the gateway writes a gRPC status',
  properties: {
    code: { type: 'integer', description: 'gRPC status code (3 invalid argument, 5 not found, …)' },
    message: { type: 'string' },
    details: { type: 'array', items: { type: 'object' } },
  },
};
