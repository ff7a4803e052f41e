// The gRPC server (ARCHITECTURE.md "Processes", :9090): every query service the app's QueryRouter
// serves, generically. A method's handler hands the raw request bytes to the app's ABCI Query under
// its gRPC path and answers with the raw response bytes — no decoding, no re-encoding — so gRPC,
// REST and abci_query answer alike. Given the node's parts, it also serves the tx service
// (cosmos.tx.v1beta1.Service: BroadcastTx, Simulate, GetTx, tx-service.ts), bytes in and bytes out as
// well. Server reflection serves the protobuf descriptors.
import { Metadata, Server, ServerCredentials, status, type ServerUnaryCall, type sendUnaryData, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { nopLogger, type Logger } from '@chaind/sdk/app';
import { TX_METHODS, TX_SERVICE, TxServiceError, type TxNode } from '../tx-service.ts';
import { loadDescriptors } from '../query/descriptors.ts';
import { HEIGHT_HEADER, HeightError, parseHeight, runQuery, type QueryApp } from '../query/query.ts';

export interface GrpcServerOptions {
  /** Default 127.0.0.1: the node is not exposed unless configured to be. */
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly app: QueryApp;
  /** The node's parts the tx service needs; without them only the query services are served. */
  readonly txNode?: TxNode;
  readonly logger?: Logger;
}

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
      callback({ code: status.INVALID_ARGUMENT, details: (e as HeightError).message });
      return;
    }
    try {
      const r = runQuery(app, path, call.request, height);
      // a header, as the Cosmos SDK sends it (callback metadata would be a trailer)
      const md = new Metadata();
      md.set(HEIGHT_HEADER, r.height.toString());
      call.sendMetadata(md);
      if (r.ok) callback(null, Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength));
      else callback({ code: r.code, details: r.message });
    } catch (e) {
      // BaseApp.query reports failures in its response; a throw here is a bug, not bad input
      logger.error('gRPC query failed', { path, err: String(e) });
      callback({ code: status.INTERNAL, details: e instanceof Error ? e.message : String(e) });
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
        if (e instanceof TxServiceError) return callback({ code: e.code, details: e.message });
        logger.error('gRPC tx service call failed', { path, err: String(e) });
        callback({ code: status.INTERNAL, details: e instanceof Error ? e.message : String(e) });
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
  const server = new Server();
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

  const port = await new Promise<number>((resolve, reject) => {
    const target = host.includes(':') ? `[${host}]:${o.port}` : `${host}:${o.port}`;
    server.bindAsync(target, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
  });
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  logger.info('gRPC server listening', { address, services: [...services.keys()] });
  let closed: Promise<void> | undefined;
  return {
    address,
    close(): Promise<void> {
      closed ??= new Promise<void>((resolve) => {
        // in-flight calls finish; a stuck client must not hold the node's shutdown
        const timer = setTimeout(() => server.forceShutdown(), 5000);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      return closed;
    },
  };
}
