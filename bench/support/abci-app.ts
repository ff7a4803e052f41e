// chaind's side of bench/abci-throughput.ts in its own process, as it runs beside CometBFT: the chain
// app on a fresh home behind its ABCI server (AbciDriver, as `chaind start --with-comet` serves it),
// waiting for a client to send InitChain.
// Usage: node [chaind's Node flags] --import tsx bench/support/abci-app.ts <home>
// Prints one line `{"address": "tcp://127.0.0.1:<port>"}` once it listens; stops on SIGTERM.
import { AbciTestApp } from '@chaind/chaind/testing';

const [home] = process.argv.slice(2);
if (home === undefined) throw new Error('usage: abci-app.ts <home>');

const app = await AbciTestApp.start({ home });
console.log(JSON.stringify({ address: app.address }));
process.on('SIGTERM', () => {
  void app.stop().then(() => process.exit(0));
});
