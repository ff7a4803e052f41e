// The bare baselines of bench/node-query.ts, in their own process as the node is: a Fastify route that
// answers a constant JSON body, and a grpc-js server whose CurrentPlan handler answers constant bytes.
// Usage: node --import tsx bench/support/bare-servers.ts <rest-body-json> <grpc-response-hex>
// Prints one line `{"rest": url, "grpc": "host:port"}` once both listen; stops on SIGTERM.
import { Server, ServerCredentials, type ServerUnaryCall, type sendUnaryData } from '@grpc/grpc-js';
import Fastify from 'fastify';

const [body = '{}', hex = ''] = process.argv.slice(2);
const constant = Buffer.from(hex, 'hex');

const app = Fastify({ logger: false });
app.get('/bare', async (_req, reply) => reply.type('application/json; charset=utf-8').send(body));
const restUrl = await app.listen({ host: '127.0.0.1', port: 0 });

const identity = (b: Buffer): Buffer => b;
const grpc = new Server();
grpc.addService(
  {
    CurrentPlan: {
      path: '/chain.upgrade.v1beta1.Query/CurrentPlan',
      requestStream: false,
      responseStream: false,
      requestSerialize: identity,
      requestDeserialize: identity,
      responseSerialize: identity,
      responseDeserialize: identity,
    },
  },
  { CurrentPlan: (_call: ServerUnaryCall<Buffer, Buffer>, cb: sendUnaryData<Buffer>) => cb(null, constant) },
);
const port = await new Promise<number>((res, rej) => grpc.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))));

console.log(JSON.stringify({ rest: restUrl, grpc: `127.0.0.1:${port}` }));
process.on('SIGTERM', () => {
  grpc.forceShutdown();
  void app.close().then(() => process.exit(0));
});
