import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { Context } from './context.ts';
import { errors } from './errors.ts';
import { errorMessage } from '@chaind/errors';

/** The shape every generated protobuf message has (ts-proto and cosmjs-types alike). */
export interface MessageCodec<T> {
  encode(message: T): { finish(): Uint8Array };
  decode(input: Uint8Array): T;
  fromPartial?(object: never): T;
  fromJSON?(object: unknown): T;
  toJSON?(message: T): unknown;
}

export interface MsgRoute<M = unknown, R = unknown> {
  readonly typeUrl: string;
  readonly codec: MessageCodec<M>;
  readonly responseTypeUrl: string;
  readonly responseCodec: MessageCodec<R>;
  readonly handler: (ctx: Context, msg: M) => R;
  /** Stateless checks run before execution (and at proposal submission for gov). */
  readonly validateBasic?: (msg: M) => void;
  /** Addresses that must sign a tx carrying this message. */
  readonly signers?: (msg: M) => string[];
  /** The message's legacy amino JSON (SIGN_MODE_LEGACY_AMINO_JSON); without it, such a signature is refused. */
  readonly amino?: AminoForm<M>;
  /** The messages it carries as Anys (a proposal's), unpacked within the SDK's limits (`checkUnpackLimits`). */
  readonly anys?: (msg: M) => readonly Any[];
}

/** The SDK's MaxUnpackAnyRecursionDepth: a tx message and the Anys nested in it, 10 levels in all. */
export const MAX_UNPACK_ANY_DEPTH = 10;
/** The SDK's MaxUnpackAnySubCalls: Anys unpacked for one tx message, itself included. */
export const MAX_UNPACK_ANY_CALLS = 100;

/** A message in legacy amino JSON: `{type: <amino name>, value: <its fields>}`. */
export interface AminoMsgJson {
  readonly type: string;
  readonly value: Record<string, unknown>;
}

/** A message's amino JSON form, as the SDK's RegisterLegacyAminoCodec and the proto's `amino.name`. */
export interface AminoForm<M> {
  /** The amino name, e.g. "cosmos-sdk/MsgSend". */
  readonly name: string;
  /** The message's fields in amino JSON; `any` converts a nested message (an Any) to its own amino JSON. */
  readonly value: (msg: M, any: (a: Any) => AminoMsgJson) => Record<string, unknown>;
}

/** Routes transaction messages by type URL (`/pkg.MsgName`) to their module's handler. */
export class MsgRouter {
  private readonly routes = new Map<string, MsgRoute>();
  /** The Any decoded last, as it was then, with its message (a decoded message is never changed). */
  private lastDecoded: { readonly any: Any; readonly typeUrl: string; readonly value: Uint8Array; readonly decoded: { route: MsgRoute; msg: unknown } } | null =
    null;

  register<M, R>(route: MsgRoute<M, R>): void {
    if (!route.typeUrl.startsWith('/')) throw new Error(`type URL must start with "/": ${route.typeUrl}`);
    if (this.routes.has(route.typeUrl)) throw new Error(`a handler for ${route.typeUrl} is already registered`);
    this.routes.set(route.typeUrl, route as unknown as MsgRoute);
  }

  has(typeUrl: string): boolean {
    return this.routes.has(typeUrl);
  }

  route(typeUrl: string): MsgRoute {
    const r = this.routes.get(typeUrl);
    if (r === undefined) throw errors.unknownRequest.wrap(`unrecognized message type: ${typeUrl}`);
    return r;
  }

  /** Decodes an Any into its message, refusing unknown types and undecodable bytes with a clear error. */
  decode(any: Any): { route: MsgRoute; msg: unknown } {
    // the same Any decoded again is the common case: the ante handler reads a message's signers, then
    // the block executes it, or the mempool reads the sender of the tx CheckTx just admitted
    const last = this.lastDecoded;
    if (last !== null && last.any === any && last.typeUrl === any.typeUrl && last.value === any.value) return last.decoded;
    const route = this.route(any.typeUrl);
    let msg: unknown;
    try {
      msg = route.codec.decode(any.value);
    } catch (e) {
      throw errors.txDecode.wrap(`cannot decode ${any.typeUrl}: ${errorMessage(e)}`);
    }
    const decoded = { route, msg };
    this.lastDecoded = { any, typeUrl: any.typeUrl, value: any.value, decoded };
    return decoded;
  }

  /**
   * The SDK's unpacking limits on a tx message (codec/types statefulUnpacker), applied before anything
   * recurses into its nested messages: deeper nesting would otherwise end wherever the JS stack does,
   * a point that differs between machines and even between calls. Nested Anys of unknown types are
   * left to the checks that refuse them.
   */
  checkUnpackLimits(any: Any): void {
    const calls = { left: MAX_UNPACK_ANY_CALLS };
    const unpack = (a: Any, depth: number): void => {
      if (depth === 0) throw errors.txDecode.wrap('max depth exceeded');
      if (calls.left === 0) throw errors.txDecode.wrap('call limit exceeded');
      if (a.typeUrl === '' || !this.routes.has(a.typeUrl)) return;
      calls.left--;
      const { route, msg } = this.decode(a);
      for (const inner of route.anys?.(msg) ?? []) unpack(inner, depth - 1);
    };
    unpack(any, MAX_UNPACK_ANY_DEPTH);
  }

  /** Executes a decoded message and returns its response packed as an Any. */
  execute(ctx: Context, route: MsgRoute, msg: unknown): Any {
    route.validateBasic?.(msg);
    const res = route.handler(ctx, msg);
    return { typeUrl: route.responseTypeUrl, value: route.responseCodec.encode(res).finish() };
  }

  typeUrls(): string[] {
    return [...this.routes.keys()].sort();
  }
}

interface MethodDefinition<Req, Res> {
  readonly name: string;
  readonly requestType: MessageCodec<Req>;
  readonly responseType: MessageCodec<Res>;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
}

/** A ts-proto generic service definition (`outputServices=generic-definitions`). */
export interface ServiceDefinition {
  readonly name: string;
  readonly fullName: string;
  readonly methods: { readonly [key: string]: MethodDefinition<unknown, unknown> };
}

type ReqOf<M> = M extends MethodDefinition<infer Req, unknown> ? Req : never;
type ResOf<M> = M extends MethodDefinition<unknown, infer Res> ? Res : never;

/** Handlers for every method of a service, typed from its definition. */
export type ServiceImpl<D extends ServiceDefinition> = {
  readonly [K in keyof D['methods']]: (ctx: Context, req: ReqOf<D['methods'][K]>) => ResOf<D['methods'][K]>;
};

export interface QueryRoute {
  readonly path: string;
  readonly requestType: MessageCodec<unknown>;
  readonly responseType: MessageCodec<unknown>;
  readonly handler: (ctx: Context, req: unknown) => unknown;
}

/**
 * Routes queries by gRPC method path (`/chain.upgrade.v1beta1.Query/CurrentPlan`). gRPC, REST and
 * JSON-RPC abci_query all go through it, so each module registers its query service once.
 */
export class QueryRouter {
  private readonly routes = new Map<string, QueryRoute>();
  private readonly services = new Map<string, ServiceDefinition>();

  registerService<D extends ServiceDefinition>(def: D, impl: ServiceImpl<D>): void {
    if (this.services.has(def.fullName)) throw new Error(`query service ${def.fullName} is already registered`);
    this.services.set(def.fullName, def);
    for (const [key, m] of Object.entries(def.methods)) {
      const path = `/${def.fullName}/${m.name}`;
      const fn = (impl as unknown as Record<string, QueryRoute['handler']>)[key];
      if (typeof fn !== 'function') throw new Error(`query service ${def.fullName} has no handler for ${m.name}`);
      this.routes.set(path, {
        path,
        requestType: m.requestType as MessageCodec<unknown>,
        responseType: m.responseType as MessageCodec<unknown>,
        handler: fn,
      });
    }
  }

  route(path: string): QueryRoute {
    const r = this.routes.get(path);
    if (r === undefined) throw errors.unknownRequest.wrap(`unknown query path ${path}`);
    return r;
  }

  has(path: string): boolean {
    return this.routes.has(path);
  }

  /** Decodes the request bytes, runs the handler and encodes the response. */
  query(ctx: Context, path: string, data: Uint8Array): Uint8Array {
    const r = this.route(path);
    let req: unknown;
    try {
      req = r.requestType.decode(data);
    } catch (e) {
      throw errors.txDecode.withText(`cannot decode request for ${path}: ${errorMessage(e)}`);
    }
    return r.responseType.encode(r.handler(ctx, req)).finish();
  }

  paths(): string[] {
    return [...this.routes.keys()].sort();
  }

  serviceDefinitions(): ServiceDefinition[] {
    return [...this.services.values()];
  }
}
