// A wallet's side of SIGN_MODE_LEGACY_AMINO_JSON, as CosmJS apps write it: CosmJS's default converters
// (bank, gov v1beta1, ...) plus the ones @cosmjs/stargate 0.39 lacks, written from the SDK's protos, not
// from chaind's code: gov v1 (cosmos-sdk/v1/...) and our upgrade messages (chain/...).
import type { GeneratedType, Registry } from '@cosmjs/proto-signing';
import { AminoTypes, createDefaultAminoConverters, type AminoConverters } from '@cosmjs/stargate';
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { MsgCancelUpgrade, MsgSoftwareUpgrade } from '@chaind/sdk/gen/chain/upgrade/v1beta1/tx';

export const UPGRADE_TYPE_URL = '/chain.upgrade.v1beta1.MsgSoftwareUpgrade';
export const CANCEL_UPGRADE_TYPE_URL = '/chain.upgrade.v1beta1.MsgCancelUpgrade';

/** Registers our upgrade messages in a CosmJS registry (ts-proto 2 types: same runtime shape, other BinaryWriter type). */
export function registerUpgradeTypes(registry: Registry): Registry {
  registry.register(UPGRADE_TYPE_URL, MsgSoftwareUpgrade as unknown as GeneratedType);
  registry.register(CANCEL_UPGRADE_TYPE_URL, MsgCancelUpgrade as unknown as GeneratedType);
  return registry;
}

interface AminoCoin {
  denom: string;
  amount: string;
}
const coins = (cs: readonly Coin[] | undefined): AminoCoin[] => (cs ?? []).map((c) => ({ denom: c.denom, amount: c.amount }));
/** omitempty: a zero value is left out of the amino JSON. */
const opt = <T>(key: string, v: T, empty: T): Record<string, T> => (v === empty ? {} : { [key]: v });

/* eslint-disable @typescript-eslint/no-explicit-any -- CosmJS's converters are typed `any` both ways */
function govV1(types: () => AminoTypes, registry: Registry): AminoConverters {
  return {
    '/cosmos.gov.v1.MsgSubmitProposal': {
      aminoType: 'cosmos-sdk/v1/MsgSubmitProposal',
      toAmino: (m: any) => ({
        ...((m.messages as Any[]).length > 0 && {
          messages: (m.messages as Any[]).map((a) => types().toAmino({ typeUrl: a.typeUrl, value: registry.decode(a) })),
        }),
        initial_deposit: coins(m.initialDeposit),
        ...opt('proposer', m.proposer as string, ''),
        ...opt('metadata', m.metadata as string, ''),
        ...opt('title', m.title as string, ''),
        ...opt('summary', m.summary as string, ''),
        ...opt('expedited', m.expedited as boolean, false),
      }),
      fromAmino: (v: any) => ({
        messages: ((v.messages ?? []) as { type: string; value: Record<string, unknown> }[]).map((m) => registry.encodeAsAny(types().fromAmino(m))),
        initialDeposit: v.initial_deposit,
        proposer: v.proposer ?? '',
        metadata: v.metadata ?? '',
        title: v.title ?? '',
        summary: v.summary ?? '',
        expedited: v.expedited ?? false,
      }),
    },
    '/cosmos.gov.v1.MsgDeposit': {
      aminoType: 'cosmos-sdk/v1/MsgDeposit',
      toAmino: (m: any) => ({ proposal_id: String(m.proposalId), ...opt('depositor', m.depositor as string, ''), amount: coins(m.amount) }),
      fromAmino: (v: any) => ({ proposalId: BigInt(v.proposal_id), depositor: v.depositor ?? '', amount: v.amount }),
    },
    '/cosmos.gov.v1.MsgVote': {
      aminoType: 'cosmos-sdk/v1/MsgVote',
      toAmino: (m: any) => ({
        proposal_id: String(m.proposalId),
        ...opt('voter', m.voter as string, ''),
        ...opt('option', m.option as number, 0),
        ...opt('metadata', m.metadata as string, ''),
      }),
      fromAmino: (v: any) => ({ proposalId: BigInt(v.proposal_id), voter: v.voter ?? '', option: v.option ?? 0, metadata: v.metadata ?? '' }),
    },
    '/cosmos.gov.v1.MsgVoteWeighted': {
      aminoType: 'cosmos-sdk/v1/MsgVoteWeighted',
      toAmino: (m: any) => ({
        proposal_id: String(m.proposalId),
        ...opt('voter', m.voter as string, ''),
        ...((m.options as unknown[]).length > 0 && {
          options: (m.options as { option: number; weight: string }[]).map((o) => ({ ...opt('option', o.option, 0), ...opt('weight', o.weight, '') })),
        }),
        ...opt('metadata', m.metadata as string, ''),
      }),
      fromAmino: (v: any) => ({
        proposalId: BigInt(v.proposal_id),
        voter: v.voter ?? '',
        options: ((v.options ?? []) as { option?: number; weight?: string }[]).map((o) => ({ option: o.option ?? 0, weight: o.weight ?? '' })),
        metadata: v.metadata ?? '',
      }),
    },
  };
}

/** Our upgrade messages with the SDK's cosmos.upgrade.v1beta1 field rules (plan and its time never omitted). */
function upgrade(): AminoConverters {
  return {
    [UPGRADE_TYPE_URL]: {
      aminoType: 'chain/MsgSoftwareUpgrade',
      toAmino: (m: any) => ({
        ...opt('authority', m.authority as string, ''),
        plan: {
          ...opt('name', m.plan.name as string, ''),
          time: '0001-01-01T00:00:00Z',
          ...opt('height', String(m.plan.height), '0'),
          ...opt('info', m.plan.info as string, ''),
        },
      }),
      fromAmino: (v: any) => ({ authority: v.authority ?? '', plan: { name: v.plan.name ?? '', height: BigInt(v.plan.height ?? 0), info: v.plan.info ?? '' } }),
    },
    [CANCEL_UPGRADE_TYPE_URL]: {
      aminoType: 'chain/MsgCancelUpgrade',
      toAmino: (m: any) => ({ ...opt('authority', m.authority as string, '') }),
      fromAmino: (v: any) => ({ authority: v.authority ?? '' }),
    },
  };
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** The AminoTypes a SigningStargateClient needs for every message chaind routes. */
export function chainAminoTypes(registry: Registry): AminoTypes {
  const types: AminoTypes = new AminoTypes({ ...createDefaultAminoConverters(), ...govV1(() => types, registry), ...upgrade() });
  return types;
}
