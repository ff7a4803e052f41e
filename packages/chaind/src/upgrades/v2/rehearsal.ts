// What `npm run rehearse` checks after upgrade v2 (see ./index.ts for what v2 changes): the new chaininfo
// store, the validators store under its new name with the migrated total power, the module versions.
import { RehearsalCheckError, type RehearsalChecks } from '../rehearsal.ts';
import { CHAININFO, STARTED_AT_KEY } from './chaininfo.ts';
import { TOTAL_POWER_KEY, VALSET_STORE_KEY } from './validators-v2.ts';

const hex = (b: Uint8Array | undefined): string => Buffer.from(b ?? new Uint8Array()).toString('hex');

export const rehearsal: RehearsalChecks = {
  async after(node) {
    const versions = (await node.query(['upgrade', 'module_versions'])).trim();
    if (!/chaininfo/.test(versions) || !/validators[\s\S]{0,40}"?2"?/.test(versions)) throw new RehearsalCheckError(`module versions: ${versions}`);
    const started = await node.storeKey(CHAININFO, STARTED_AT_KEY);
    const totalPower = await node.storeKey(VALSET_STORE_KEY, TOTAL_POWER_KEY);
    const oldStore = await node.storeKey('validators', TOTAL_POWER_KEY);
    if (started.code !== 0 || started.value === undefined) throw new RehearsalCheckError(`the chaininfo store: code ${started.code}: ${started.log}`);
    if (totalPower.code !== 0 || totalPower.value === undefined)
      throw new RehearsalCheckError(`valset total power: code ${totalPower.code}: ${totalPower.log}`);
    if (oldStore.code === 0) throw new RehearsalCheckError('the old "validators" store name still answers');
    node.report(`abci_query /store/chaininfo/key 0x01 (the height chaininfo started): ${hex(started.value)}`);
    node.report(`abci_query /store/valset/key 0x03 (validators v2: total power, migrated): ${hex(totalPower.value)}`);
    node.report(`abci_query /store/validators/key 0x03 (the old name): code ${oldStore.code}: ${oldStore.log}`);
  },
};
