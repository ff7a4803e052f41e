import { MAX_NAME_BYTES } from '@chaind/upgrade-plan';
import { errors, type Configurator } from '../../app/index.ts';
import { QueryDefinition } from '../../gen/chain/upgrade/v1beta1/query.ts';
import { upgradeErrors } from './errors.ts';
import type { UpgradeKeeper } from './keeper.ts';

/** The three queries of spec §4 (plus Authority, the SDK's UpgradedConsensusState and chaind's Readiness and Params), registered once for gRPC, REST and abci_query. */
export function registerQueryServer(cfg: Configurator, k: UpgradeKeeper): void {
  cfg.queryRouter.registerService(QueryDefinition, {
    currentPlan: (ctx) => ({ plan: k.getUpgradePlan(ctx) }),
    // an unknown name is height 0, not an error, as the SDK; a name no plan can have (the SDK takes any) is refused
    appliedPlan: (ctx, req) => {
      const bytes = Buffer.byteLength(req.name, 'utf8');
      if (bytes > MAX_NAME_BYTES) throw errors.invalidRequest.wrap(`plan name of ${bytes} bytes: a plan name has at most ${MAX_NAME_BYTES}`);
      return { height: k.getDoneHeight(ctx, req.name) };
    },
    moduleVersions: (ctx, req) => {
      const vm = k.getModuleVersionMap(ctx);
      if (req.moduleName !== '') {
        const v = Object.hasOwn(vm, req.moduleName) ? vm[req.moduleName] : undefined;
        if (v === undefined) throw upgradeErrors.moduleVersionNotFound.wrap(`x/upgrade: QueryModuleVersions module ${req.moduleName} not found`);
        return { moduleVersions: [{ name: req.moduleName, version: v }] };
      }
      // byte order of name, as the store iterates
      return { moduleVersions: Object.entries(vm).map(([name, version]) => ({ name, version })) };
    },
    authority: () => ({ address: k.authority }),
    // the SDK's deprecated IBC query: nothing stored is an error (upgrade 5), not empty bytes
    upgradedConsensusState: (ctx, req) => ({ upgradedConsensusState: k.getUpgradedConsensusState(ctx, req.lastHeight) }),
    readiness: (ctx) => k.readiness(ctx),
    params: (ctx) => ({ params: k.getParams(ctx) }),
  });
}
