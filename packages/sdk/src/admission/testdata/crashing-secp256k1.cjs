// A secp256k1 backend that ends its worker thread in the middle of a batch, as a crashing native addon
// would: the pool must answer "not verified" for the whole batch and report the failure.
exports.ecdsaVerify = () => process.exit(3);
