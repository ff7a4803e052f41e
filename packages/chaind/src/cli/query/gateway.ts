// Module queries in gateway JSON, from the same protobuf descriptors the REST server renders with: the
// request is built from proto JSON, sent through abci_query with the gRPC method path, and the answer
// rendered as the Cosmos gateway writes it (snake_case, int64 as strings, null for an absent message).
// So `chaind query … -o json` prints what `curl <api>/<route>` prints.
import { Buffer } from 'node:buffer';
import { fromJson, toBinary, type DescMessage, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
import type { Command } from 'commander';
import { loadDescriptors } from '../../node/query/descriptors.ts';
import { renderGatewayJson } from '../../node/rest/gateway-json.ts';
import { UserError } from '../common.ts';
import type { RpcClient } from './rpc.ts';
import { errorMessage } from '@chaind/errors';

interface Method {
  input: DescMessage;
  output: DescMessage;
}

function methodOf(path: string): Method {
  const m = /^\/([^/]+)\/([^/]+)$/.exec(path);
  const svc = m === null ? undefined : loadDescriptors().registry.getService(m[1]);
  const method = svc?.methods.find((x) => x.name === m?.[2]);
  // a programming error: every caller names a method of the descriptors
  if (method === undefined) throw new Error(`no query method ${path} in the descriptors`);
  return method;
}

/** Calls the gRPC query `path` (e.g. /cosmos.gov.v1.Query/Proposal) with a proto-JSON request; the gateway JSON answer. */
export async function gatewayQuery(rpc: RpcClient, path: string, request: JsonObject, height = 0n): Promise<JsonObject> {
  const { input, output } = methodOf(path);
  const { registry } = loadDescriptors();
  const bytes = await rpc.abciQuery(path, toBinary(input, fromJson(input, request, { registry })), height);
  return renderGatewayJson(output, bytes, registry);
}

/** An Any in gateway JSON: {"@type", …fields} for a known type, else {"@type", "value": base64}. */
export function anyJSON(typeUrl: string, value: Uint8Array): JsonObject {
  const { registry } = loadDescriptors();
  const desc = registry.getMessage(typeUrl.slice(typeUrl.lastIndexOf('/') + 1));
  if (desc === undefined) return { '@type': typeUrl, value: Buffer.from(value).toString('base64') };
  return { '@type': typeUrl, ...renderGatewayJson(desc, value, registry) };
}

/** The message types a tx or a proposal can carry: every `Msg…` request type in the descriptors. */
export function msgTypeUrls(): string[] {
  const out: string[] = [];
  for (const t of loadDescriptors().registry) {
    if (t.kind === 'message' && /\.Msg[A-Z]\w*$/.test(t.typeName) && !t.typeName.endsWith('Response')) out.push(`/${t.typeName}`);
  }
  return out.sort();
}

/**
 * A message given as proto JSON with its "@type" (the Cosmos CLI's proposal file form) → its type URL and
 * protobuf bytes. `where` names it in errors (e.g. `messages[0]`).
 */
export function msgFromJSON(v: JsonValue, where: string): { typeUrl: string; value: Uint8Array } {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new UserError(`${where} must be a JSON object with an "@type"`);
  const typeUrl = v['@type'];
  if (typeof typeUrl !== 'string' || typeUrl === '') throw new UserError(`${where} has no "@type"`);
  const known = msgTypeUrls();
  if (!known.includes(typeUrl)) throw new UserError(`${where}: unknown message type ${JSON.stringify(typeUrl)}; known: ${known.join(', ')}`);
  const { registry } = loadDescriptors();
  const desc = registry.getMessage(typeUrl.slice(1));
  if (desc === undefined) throw new UserError(`${where}: unknown message type ${JSON.stringify(typeUrl)}`);
  const fields = Object.fromEntries(Object.entries(v).filter(([k]) => k !== '@type'));
  try {
    return { typeUrl, value: toBinary(desc, fromJson(desc, fields, { registry })) };
  } catch (e) {
    throw new UserError(`${where} (${typeUrl}): ${errorMessage(e)}`);
  }
}

export interface PageOptions {
  limit?: string;
  offset?: string;
  pageKey?: string;
  countTotal?: boolean;
  reverse?: boolean;
}

/** The SDK's pagination flags of a list query. */
export function addPageOptions(cmd: Command, what: string): Command {
  return cmd
    .option('--limit <n>', `pagination limit of ${what} to query for`)
    .option('--offset <n>', `pagination offset of ${what} to query for`)
    .option('--page-key <key>', `pagination page-key (base64) of ${what} to query for`)
    .option('--count-total', `count the total number of ${what}`)
    .option('--reverse', 'results are sorted in descending order');
}

/** The PageRequest in proto JSON; a bad flag is a UserError. */
export function pageRequest(o: PageOptions): JsonObject {
  const p: JsonObject = {};
  for (const [flag, key, value] of [
    ['--limit', 'limit', o.limit],
    ['--offset', 'offset', o.offset],
  ] as const) {
    if (value === undefined) continue;
    if (!/^\d+$/.test(value)) throw new UserError(`invalid ${flag} ${JSON.stringify(value)}: expected a non-negative integer`);
    p[key] = value;
  }
  if (o.pageKey !== undefined) {
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(o.pageKey)) throw new UserError(`invalid --page-key ${JSON.stringify(o.pageKey)}: expected base64`);
    if (o.offset !== undefined) throw new UserError('--page-key and --offset cannot be used together');
    p.key = o.pageKey;
  }
  if (o.countTotal === true) p.count_total = true;
  if (o.reverse === true) p.reverse = true;
  return p;
}
