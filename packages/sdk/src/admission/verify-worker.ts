// A worker thread of SignatureVerifyPool: answers each batch the pool posts, verifying with the
// secp256k1 module the pool names. Its own entry point: a release builds it beside the node's bundle.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { answerBatch, type EcdsaVerifier, type VerifyWorkerData } from './verify-batch.ts';

const port = parentPort;
if (port === null) throw new Error('verify-worker runs as a worker thread of SignatureVerifyPool');
const secp = createRequire(import.meta.url)((workerData as VerifyWorkerData).secp256k1) as EcdsaVerifier;
port.on('message', (ab: ArrayBuffer) => {
  const out = answerBatch(ab, secp);
  port.postMessage(out, [out.buffer]);
});
