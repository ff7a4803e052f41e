// A secp256k1 backend whose worker never answers (a stuck native call): what the pool has posted to it
// stays unanswered, and the triples still queued must not wait for it.
exports.ecdsaVerify = () => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
  return true;
};
