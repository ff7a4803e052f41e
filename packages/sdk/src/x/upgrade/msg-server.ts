import type { Configurator } from '../../app/index.ts';
import { fromBech32 } from '../../crypto/index.ts';
import {
  MsgCancelUpgrade,
  MsgCancelUpgradeResponse,
  MsgSoftwareUpgrade,
  MsgSoftwareUpgradeResponse,
  MsgUpdateParams,
  MsgUpdateParamsResponse,
} from '../../gen/chain/upgrade/v1beta1/tx.ts';
import { errors } from '../../app/index.ts';
import { msgCancelUpgradeAmino, msgSoftwareUpgradeAmino, msgUpdateParamsAmino } from './amino.ts';
import { validateParams } from './params.ts';
import { upgradeErrors } from './errors.ts';
import type { UpgradeKeeper } from './keeper.ts';
import { validatePlanBasic, validatePlanName } from './plan.ts';
import { errorMessage } from '@chaind/errors';

export const MSG_SOFTWARE_UPGRADE = '/chain.upgrade.v1beta1.MsgSoftwareUpgrade';
export const MSG_CANCEL_UPGRADE = '/chain.upgrade.v1beta1.MsgCancelUpgrade';
export const MSG_UPDATE_PARAMS = '/chain.upgrade.v1beta1.MsgUpdateParams';

function validateAuthority(authority: string): void {
  try {
    fromBech32(authority);
  } catch (e) {
    throw errors.invalidAddress.wrap(`authority: ${errorMessage(e)}`);
  }
}

function assertAuthority(k: UpgradeKeeper, authority: string): void {
  if (authority !== k.authority) throw upgradeErrors.invalidSigner.wrap(`expected ${k.authority} got ${authority}`);
}

/** The two transactions of spec §4.4, and MsgUpdateParams (chaind's readiness gate); only the authority (gov) may send them. */
export function registerMsgServer(cfg: Configurator, k: UpgradeKeeper): void {
  cfg.msgRouter.register({
    typeUrl: MSG_SOFTWARE_UPGRADE,
    codec: MsgSoftwareUpgrade,
    responseTypeUrl: '/chain.upgrade.v1beta1.MsgSoftwareUpgradeResponse',
    responseCodec: MsgSoftwareUpgradeResponse,
    validateBasic(msg: MsgSoftwareUpgrade) {
      validateAuthority(msg.authority);
      if (msg.plan === undefined) throw errors.invalidRequest.wrap('plan is required');
      validatePlanBasic(msg.plan);
      validatePlanName(msg.plan.name);
    },
    signers: (msg: MsgSoftwareUpgrade) => [msg.authority],
    amino: msgSoftwareUpgradeAmino,
    handler(ctx, msg: MsgSoftwareUpgrade) {
      assertAuthority(k, msg.authority);
      if (msg.plan === undefined) throw errors.invalidRequest.wrap('plan is required');
      k.scheduleUpgrade(ctx, msg.plan);
      return {};
    },
  });
  cfg.msgRouter.register({
    typeUrl: MSG_CANCEL_UPGRADE,
    codec: MsgCancelUpgrade,
    responseTypeUrl: '/chain.upgrade.v1beta1.MsgCancelUpgradeResponse',
    responseCodec: MsgCancelUpgradeResponse,
    validateBasic: (msg: MsgCancelUpgrade) => validateAuthority(msg.authority),
    signers: (msg: MsgCancelUpgrade) => [msg.authority],
    amino: msgCancelUpgradeAmino,
    handler(ctx, msg: MsgCancelUpgrade) {
      assertAuthority(k, msg.authority);
      // succeeds when nothing is scheduled, as the SDK
      k.clearUpgradePlan(ctx);
      return {};
    },
  });
  cfg.msgRouter.register({
    typeUrl: MSG_UPDATE_PARAMS,
    codec: MsgUpdateParams,
    responseTypeUrl: '/chain.upgrade.v1beta1.MsgUpdateParamsResponse',
    responseCodec: MsgUpdateParamsResponse,
    validateBasic(msg: MsgUpdateParams) {
      validateAuthority(msg.authority);
      if (msg.params === undefined) throw errors.invalidRequest.wrap('params are required');
      try {
        validateParams(msg.params);
      } catch (e) {
        throw errors.invalidRequest.wrap(`invalid params: ${errorMessage(e)}`);
      }
    },
    signers: (msg: MsgUpdateParams) => [msg.authority],
    amino: msgUpdateParamsAmino,
    handler(ctx, msg: MsgUpdateParams) {
      assertAuthority(k, msg.authority);
      if (msg.params === undefined) throw errors.invalidRequest.wrap('params are required');
      k.setParams(ctx, msg.params);
      return {};
    },
  });
}
