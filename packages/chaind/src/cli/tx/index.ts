// `chaind tx …`: build, sign (SIGN_MODE_DIRECT, a key of the keyring) and broadcast txs over the node's
// JSON-RPC, as the Cosmos SDK CLI: `tx bank send`, `tx gov submit-proposal|deposit|vote|weighted-vote`,
// `tx upgrade software-upgrade|cancel-software-upgrade`.
import type { Command } from 'commander';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { UserError } from '../common.ts';
import { addressArg, addTxOptions, coinsArg, runTx, type TxOptions } from './client.ts';
import { registerGovTxCommands } from './gov.ts';
import { registerUpgradeTxCommands } from './upgrade.ts';

export function registerTxCommands(program: Command): void {
  const tx = program.command('tx').description("transaction subcommands (signed with a keyring key, broadcast over the node's JSON-RPC)");

  const bank = tx.command('bank').description('bank transaction subcommands');
  addTxOptions(
    bank
      .command('send')
      .description('send coins from one account to another')
      .argument('<from>', 'the sending key (name or address); it signs the tx')
      .argument('<to>', 'the receiving address')
      .argument('<amount>', 'the coins to send, e.g. 1000stake'),
    false,
  ).action(async (from: string, to: string, amount: string, o: TxOptions) => {
    addressArg(to, 'to address');
    const coins = coinsArg(amount, 'amount');
    if (coins.length === 0) throw new UserError('amount must not be empty');
    await runTx({ ...o, from }, (signer) => [
      {
        any: { typeUrl: '/cosmos.bank.v1beta1.MsgSend', value: MsgSend.encode({ fromAddress: signer, toAddress: to, amount: coins }).finish() },
        json: { from_address: signer, to_address: to, amount: coins },
      },
    ]);
  });

  registerGovTxCommands(tx);
  registerUpgradeTxCommands(tx);
}
