// Our upgrade messages in legacy amino JSON (SIGN_MODE_LEGACY_AMINO_JSON). They are chain.upgrade.v1beta1
// types, not the SDK's, so their amino names are ours, in the SDK's pattern ("chain/<Msg>"); their
// fields follow the SDK's cosmos.upgrade.v1beta1 options: the plan and its time are never omitted
// (an unset time is Go's zero time).
import type { MsgCancelUpgrade, MsgSoftwareUpgrade, MsgUpdateParams } from '../../gen/chain/upgrade/v1beta1/tx.ts';
import type { Plan } from '../../gen/chain/upgrade/v1beta1/upgrade.ts';
import type { AminoForm, AminoMsgJson } from '../../app/router.ts';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { aminoFields, aminoTime } from '../../tx/amino-json.ts';

function planAmino(p: Plan | undefined, any: (a: Any) => AminoMsgJson): Record<string, unknown> {
  if (p === undefined) return {};
  return aminoFields(
    {
      name: p.name,
      time: aminoTime(p.time === undefined ? undefined : { seconds: BigInt(p.time.seconds), nanos: p.time.nanos }),
      height: p.height,
      info: p.info,
      upgraded_client_state: p.upgradedClientState === undefined ? undefined : any(p.upgradedClientState),
    },
    ['time'],
  );
}

export const msgSoftwareUpgradeAmino: AminoForm<MsgSoftwareUpgrade> = {
  name: 'chain/MsgSoftwareUpgrade',
  value: (m, any) => aminoFields({ authority: m.authority, plan: planAmino(m.plan, any) }, ['plan']),
};

export const msgCancelUpgradeAmino: AminoForm<MsgCancelUpgrade> = {
  name: 'chain/MsgCancelUpgrade',
  value: (m) => aminoFields({ authority: m.authority }),
};

export const msgUpdateParamsAmino: AminoForm<MsgUpdateParams> = {
  name: 'chain/x/upgrade/MsgUpdateParams',
  value: (m) =>
    aminoFields(
      {
        authority: m.authority,
        params:
          m.params === undefined
            ? {}
            : aminoFields({
                readiness_threshold: m.params.readinessThreshold,
                readiness_delay: m.params.readinessDelay,
                readiness_max_delays: m.params.readinessMaxDelays,
              }),
      },
      ['params'],
    ),
};
