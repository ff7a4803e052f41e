// The gRPC server (docs/architecture.md "Processes", :9090): every query service the app's QueryRouter
// serves, generically. A method's handler hands the raw request bytes to the app's ABCI Query under
// its gRPC path and answers with the raw response bytes — no decoding, no re-encoding — so gRPC,
// REST and abci_query answer alike. Given the node's parts, it also serves the tx service
// (cosmos.tx.v1beta1.Service: BroadcastTx, Simulate, GetTx, tx-service.ts), bytes in and bytes out as
// well. Server reflection serves the protobuf descriptors.
import {
  Metadata,
  Server,
  ServerCredentials,
  status,
  type ServerUnaryCall,
  type sendUnaryData,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { nopLogger, type Logger } from '@chaind/sdk/app';
import { TX_METHODS, TX_SERVICE, TxServiceError, type TxNode } from '../tx-service.ts';
import { loadDescriptors } from '../query/descriptors.ts';
import { runQuery, type QueryApp } from '../query/query.ts';
import { HEIGHT_HEADER, HeightError, parseHeight } from '../query/request.ts';
import { errorMessage } from '@chaind/errors';

export interface GrpcServerOptions {
  /** Default 127.0.0.1: the node is not exposed unless configured to be. */
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly app: QueryApp;
  /** The node's parts the tx service needs; without them only the query services are served. */
  readonly txNode?: TxNode;
  readonly logger?: Logger;
  readonly limits?: Partial<GrpcLimits>;
}

export interface GrpcLimits {
  /** Largest request message (the SDK's max-recv-msg-size). */
  readonly maxRecvMsgSize: number;
  /** Largest response message (the SDK's max-send-msg-size). */
  readonly maxSendMsgSize: number;
  /** Most connections open at once; 0 no limit. */
  readonly maxOpenConnections: number;
  /** After this long without traffic the server pings the client, and drops it if no answer comes within keepaliveTimeoutMs. */
  readonly keepaliveTimeMs: number;
  readonly keepaliveTimeoutMs: number;
  /** A connection without a call for this long is closed (a silent socket too). */
  readonly maxConnectionIdleMs: number;
}

export const DEFAULT_GRPC_LIMITS: GrpcLimits = {
  // the SDK's defaults
  maxRecvMsgSize: 10 * 1024 * 1024,
  maxSendMsgSize: 2_147_483_647,
  maxOpenConnections: 1000,
  keepaliveTimeMs: 5 * 60_000,
  keepaliveTimeoutMs: 20_000,
  maxConnectionIdleMs: 5 * 60_000,
};

export interface GrpcServer {
  /** host:port actually bound. */
  readonly address: string;
  close(): Promise<void>;
}

type ReflectionPackage = ConstructorParameters<typeof ReflectionService>[0];

const identity = (b: Buffer): Buffer => b;

/** The query router's paths grouped by service: `/pkg.Service/Method` → service → [path]. */
export function servicesOf(paths: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const p of paths) {
    const m = /^\/([^/]+)\/([^/]+)$/.exec(p);
    if (m === null) continue;
    const list = out.get(m[1]) ?? [];
    list.push(p);
    out.set(m[1], list);
  }
  return out;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * An error status for a call. Its text often quotes the request (an address, a denom) and may so hold a
 * lone surrogate, which grpc-js cannot percent-encode into the grpc-message trailer: it would throw out
 * of its stream handler and end the process. Each one becomes U+FFFD.
 */
export function failure(code: status, details: string): { code: status; details: string } {
  return { code, details: details.replace(LONE_SURROGATE, '\uFFFD') };
}

function firstValue(md: Metadata, k: string): string | undefined {
  const v = md.get(k)[0];
  return v === undefined ? undefined : v.toString();
}

function handler(app: QueryApp, path: string, logger: Logger) {
  return (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>): void => {
    let height: bigint;
    try {
      height = parseHeight(firstValue(call.metadata, HEIGHT_HEADER));
    } catch (e) {
      callback(failure(status.INVALID_ARGUMENT, (e as HeightError).message));
      return;
    }
    try {
      const r = runQuery(app, path, call.request, height);
      // a header, as the Cosmos SDK sends it (callback metadata would be a trailer)
      const md = new Metadata();
      md.set(HEIGHT_HEADER, r.height.toString());
      call.sendMetadata(md);
      if (r.ok) callback(null, Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength));
      else callback(failure(r.code, r.message));
    } catch (e) {
      // BaseApp.query reports failures in its response; a throw here is a bug, not bad input
      logger.error('gRPC query failed', { path, err: String(e) });
      callback(failure(status.INTERNAL, errorMessage(e)));
    }
  };
}

function txHandler(node: TxNode, path: string, logger: Logger) {
  const call = TX_METHODS.get(path);
  if (call === undefined) throw new Error(`no tx service method ${path}`);
  return (c: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>): void => {
    call(node, c.request).then(
      (out) => callback(null, Buffer.from(out.buffer, out.byteOffset, out.byteLength)),
      (e: unknown) => {
        if (e instanceof TxServiceError) return callback(failure(e.code, e.message));
        logger.error('gRPC tx service call failed', { path, err: String(e) });
        callback(failure(status.INTERNAL, errorMessage(e)));
      },
    );
  };
}

const rawMethod = (path: string): ServiceDefinition[string] => ({
  path,
  requestStream: false,
  responseStream: false,
  requestSerialize: identity,
  requestDeserialize: identity,
  responseSerialize: identity,
  responseDeserialize: identity,
});

/**
 * Reflection over exactly the bytes buf built (comments included), one entry per file: the
 * reflection service reads only `fileDescriptorProtos` (proto-loader would re-derive the files
 * through protobufjs and merge those of one package).
 */
function reflectionPackage(): ReflectionPackage {
  const { files, fileBytes } = loadDescriptors();
  const bytes = fileBytes();
  const pkg: ReflectionPackage = {};
  files.forEach((f, i) => {
    pkg[f.name] = { format: 'Protocol Buffer 3 EnumDescriptorProto', type: {}, fileDescriptorProtos: [bytes[i]] };
  });
  return pkg;
}

export async function startGrpcServer(o: GrpcServerOptions): Promise<GrpcServer> {
  const host = o.host ?? '127.0.0.1';
  const logger = o.logger ?? nopLogger;
  const limits: GrpcLimits = { ...DEFAULT_GRPC_LIMITS, ...o.limits };
  const server = new Server({
    'grpc.max_receive_message_length': limits.maxRecvMsgSize,
    'grpc.max_send_message_length': limits.maxSendMsgSize,
    'grpc.keepalive_time_ms': limits.keepaliveTimeMs,
    'grpc.keepalive_timeout_ms': limits.keepaliveTimeoutMs,
    'grpc.max_connection_idle_ms': limits.maxConnectionIdleMs,
  });
  const services = servicesOf(o.app.modules.queryRouter.paths());
  // the node's tx service, should the app's query router also register one
  if (o.txNode !== undefined) services.delete(TX_SERVICE);
  for (const paths of services.values()) {
    const def: Record<string, ServiceDefinition[string]> = {};
    const impl: UntypedServiceImplementation = {};
    for (const path of paths) {
      def[path] = rawMethod(path);
      impl[path] = handler(o.app, path, logger);
    }
    server.addService(def, impl);
  }
  if (o.txNode !== undefined) {
    const def: Record<string, ServiceDefinition[string]> = {};
    const impl: UntypedServiceImplementation = {};
    for (const path of TX_METHODS.keys()) {
      def[path] = rawMethod(path);
      impl[path] = txHandler(o.txNode, path, logger);
    }
    server.addService(def, impl);
    services.set(TX_SERVICE, [...TX_METHODS.keys()]);
  }
  // list only what this server answers (the descriptors also hold e.g. chain.upgrade.v1beta1.Msg)
  const { registry } = loadDescriptors();
  const reflected = [...services.keys()].filter((s) => registry.getService(s) !== undefined);
  for (const s of services.keys()) if (!reflected.includes(s)) logger.warn('gRPC service has no descriptor; reflection will not list it', { service: s });
  new ReflectionService(reflectionPackage(), { services: reflected }).addToServer(server);

  // grpc-js cannot bound its connections: a net server of ours accepts them and hands them over
  const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
  const listener = createNetServer((socket) => {
    injector.injectConnection(socket);
    // grpc-js times out idle HTTP/2 sessions, not a socket that never sends a byte
    const silent = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, limits.maxConnectionIdleMs);
    silent.unref();
    socket.once('close', () => clearTimeout(silent));
  });
  if (limits.maxOpenConnections > 0) listener.maxConnections = limits.maxOpenConnections;
  const port = await new Promise<number>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(o.port, host, () => {
      listener.off('error', reject);
      resolve((listener.address() as AddressInfo).port);
    });
  });
  listener.on('error', (e) => logger.error('gRPC server error', { error: e.message }));
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  logger.info('gRPC server listening', { address, services: [...services.keys()] });
  let closed: Promise<void> | undefined;
  return {
    address,
    close(): Promise<void> {
      closed ??= new Promise<void>((resolve) => {
        listener.close();
        // in-flight calls finish; a stuck client must not hold the node's shutdown
        const timer = setTimeout(() => {
          server.forceShutdown();
          injector.destroy();
        }, 5000);
        server.tryShutdown(() => {
          clearTimeout(timer);
          injector.destroy();
          resolve();
        });
      });
      return closed;
    },
  };
}
