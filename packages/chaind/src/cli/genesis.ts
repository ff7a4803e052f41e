// `chaind genesis …`: build and check <home>/config/genesis.json.
//   add-account <address|key-name> <coins>     an auth BaseAccount and its bank balance; supply follows
//   add-validator <key-name|address> <power>   a validators entry: that account operates, the node's consensus key signs
//   validate [file]                            the document and every module's app_state, as the node will load it
import { Buffer } from 'node:buffer';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { ModuleManager } from '@chaind/sdk/app';
import { DEFAULT_PREFIX, fromBech32, toBech32 } from '@chaind/sdk/crypto';
import { GenesisError, parseGenesis, validateGenesis, writeGenesis, type GenesisDoc } from '@chaind/sdk/genesis';
import { KeyringError } from '@chaind/sdk/keyring';
import { addCoins, fromProtoCoins, parseCoins, toProtoCoins, type Coin } from '@chaind/sdk/types';
import { BASE_ACCOUNT_TYPE_URL } from '@chaind/sdk/x/auth';
import { durationFromJSON } from '@chaind/sdk/x/gov';
import { COMETBFT_ED25519_TYPE, ED25519_PUBKEY_LENGTH, ED25519_PUBKEY_TYPE_URL } from '@chaind/sdk/x/validators';
import { formatGoDuration } from '@chaind/upgrade-plan';
import { loadNodeConfig, writeFileAtomic } from '../config/index.ts';
import { explainGenesisError, unknownGenesisModuleLine } from '../genesis-release.ts';
import { readPrivValidatorKey } from '../node/keys.ts';
import { withChainModules } from './chain.ts';
import { addHomeOption, addKeyringOptions, homeOf, openKeyring, printLine, UserError, type HomeOptions, type KeyringOptions } from './common.ts';
import { Input } from './input.ts';
import { errorMessage, errnoCode } from '@chaind/errors';

export const genesisPath = (home: string): string => join(home, 'config', 'genesis.json');

async function readGenesisText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') throw new UserError(`genesis file ${path} not found: run "chaind init" first, or pass the right --home`);
    throw e;
  }
}

/** Parses a genesis file; its errors name the file. */
export async function readGenesisFile(path: string): Promise<GenesisDoc> {
  const text = await readGenesisText(path);
  try {
    return parseGenesis(text);
  } catch (e) {
    if (e instanceof GenesisError) throw new UserError(`${path}: ${e.message}`);
    throw e;
  }
}

/** Writes the document atomically, keeping the file's permissions. */
export async function writeGenesisFile(path: string, doc: GenesisDoc): Promise<void> {
  let mode = 0o644;
  try {
    mode = (await stat(path)).mode & 0o777;
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') throw e;
  }
  await writeFileAtomic(path, writeGenesis(doc), mode);
}

type Json = Record<string, unknown>;

const count = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

/** A protobuf JSON duration ("172800s") in Go's form ("48h"), as the flags take it; anything else as it is. */
function goDuration(v: unknown): string {
  if (typeof v !== 'string') return '?';
  try {
    const d = durationFromJSON(v);
    return formatGoDuration(d.seconds * 1_000_000_000n + BigInt(d.nanos));
  } catch {
    return v;
  }
}

/**
 * One line on a genesis, what `init` and `dev` print instead of the whole document: its file, chain,
 * validators, accounts and governance periods (what a reader checks before starting, or wants shorter).
 */
export function genesisSummary(path: string, doc: GenesisDoc): string {
  const s = doc.appState as Record<string, Record<string, unknown> | undefined>;
  const list = (v: unknown): number => (Array.isArray(v) ? v.length : 0);
  const gov = (s.gov?.params ?? {}) as Record<string, unknown>;
  return (
    `genesis ${path}: chain ${doc.chainId}, ${count(list(s.validators?.validators), 'validator')}, ${count(list(s.auth?.accounts), 'account')}, ` +
    `max deposit period ${goDuration(gov.max_deposit_period)}, voting period ${goDuration(gov.voting_period)}`
  );
}

function object(v: unknown, where: string): Json {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new UserError(`genesis ${where} must be a JSON object`);
  return v as Json;
}

function list(v: unknown, where: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new UserError(`genesis ${where} must be an array`);
  return v;
}

/** Address bytes as hex for comparison (bech32 is case-insensitive); undefined for a malformed address, which validation reports. */
function addressKey(v: unknown): string | undefined {
  try {
    return typeof v === 'string' ? Buffer.from(fromBech32(v).data).toString('hex') : undefined;
  } catch {
    return undefined;
  }
}

/** A module's state from app_state, else its default. */
function moduleState(doc: GenesisDoc, mm: ModuleManager, name: string): Json {
  const m = mm.modules.get(name);
  if (m === undefined) throw new UserError(`this chain has no "${name}" module`);
  return object(structuredClone(doc.appState[name] ?? m.defaultGenesis?.() ?? {}), `app_state.${name}`);
}

/** Checks the changed app_state with every module's validation before anything is written. */
function checkAppState(mm: ModuleManager, doc: GenesisDoc, appState: Json, what: string): void {
  try {
    mm.validateGenesis(appState);
  } catch (e) {
    throw new UserError(`cannot ${what}: ${unknownGenesisModuleLine(e, doc) ?? `the genesis app_state would be invalid: ${errorMessage(e)}`}`);
  }
}

/**
 * An address with the chain's prefix, or the address of the key of that name in the keyring (as the
 * Cosmos SDK, an address is tried first).
 */
async function resolveAccount(arg: string, o: KeyringOptions, input: Input): Promise<string> {
  let decoded: { prefix: string; data: Uint8Array } | undefined;
  try {
    decoded = fromBech32(arg);
  } catch (e) {
    // a mistyped address of ours must not be looked up as a key name
    if (arg.toLowerCase().startsWith(`${DEFAULT_PREFIX}1`) && arg.length >= 39) throw new UserError(`invalid address ${arg}: ${errorMessage(e)}`);
  }
  if (decoded !== undefined) {
    if (decoded.prefix !== DEFAULT_PREFIX) throw new UserError(`invalid address ${arg}: expected the "${DEFAULT_PREFIX}" prefix, got "${decoded.prefix}"`);
    return toBech32(DEFAULT_PREFIX, decoded.data);
  }
  const ring = await openKeyring(o, input);
  try {
    return (await ring.get(arg)).address;
  } catch (e) {
    if (e instanceof KeyringError && (e.kind === 'key-not-found' || e.kind === 'invalid-name')) {
      throw new UserError(`${e.message}, and "${arg}" is not a ${DEFAULT_PREFIX}1… address either`);
    }
    throw e;
  }
}

/** The accounts' addresses (base or module accounts). */
function accountAddresses(auth: Json): string[] {
  return list(auth.accounts, 'app_state.auth.accounts').map((a) => {
    const o = a as { address?: unknown; base_account?: { address?: unknown } } | null;
    return String(o?.address ?? o?.base_account?.address ?? '');
  });
}

async function addAccount(arg: string, coinsArg: string, o: KeyringOptions): Promise<void> {
  let coins: Coin[];
  try {
    coins = parseCoins(coinsArg);
  } catch (e) {
    throw new UserError(`invalid coins ${JSON.stringify(coinsArg)}: ${errorMessage(e)}; expected e.g. "1000stake,50atom"`);
  }
  if (coins.length === 0) throw new UserError(`invalid coins ${JSON.stringify(coinsArg)}: no coins; expected e.g. "1000stake,50atom"`);
  const input = new Input();
  let address: string;
  try {
    address = await resolveAccount(arg, o, input);
  } finally {
    input.close();
  }
  const path = genesisPath(homeOf(o));
  const doc = await readGenesisFile(path);
  await withChainModules(async (mm) => {
    const auth = moduleState(doc, mm, 'auth');
    const bank = moduleState(doc, mm, 'bank');
    const key = addressKey(address);
    if (accountAddresses(auth).some((a) => addressKey(a) === key)) throw new UserError(`cannot add account at existing address ${address}`);
    const balances = list(bank.balances, 'app_state.bank.balances');
    if (balances.some((b) => addressKey((b as { address?: unknown } | null)?.address) === key)) {
      throw new UserError(`cannot add account ${address}: it already has a balance in app_state.bank.balances`);
    }
    // account number 0 for every genesis account, as the Cosmos SDK: InitGenesis numbers them in order
    auth.accounts = [
      ...list(auth.accounts, 'app_state.auth.accounts'),
      { '@type': BASE_ACCOUNT_TYPE_URL, address, pub_key: null, account_number: '0', sequence: '0' },
    ];
    bank.balances = [...balances, { address, coins: toProtoCoins(coins) }];
    // supply is the sum of all balances (recomputed, so an earlier hand edit cannot leave it wrong)
    let supply: Coin[] = [];
    for (const b of bank.balances as { coins?: unknown }[]) {
      const c = Array.isArray(b.coins) ? (b.coins as { denom: string; amount: string }[]) : [];
      try {
        supply = addCoins(supply, fromProtoCoins(c));
      } catch (e) {
        throw new UserError(`cannot add account: app_state.bank.balances holds invalid coins: ${errorMessage(e)}`);
      }
    }
    bank.supply = toProtoCoins(supply);
    const appState = { ...doc.appState, auth, bank };
    checkAppState(mm, doc, appState, `add account ${address}`);
    await writeGenesisFile(path, { ...doc, appState });
  });
}

/** An ed25519 public key given as CometBFT JSON, Cosmos JSON or plain base64. */
function parsePubKeyFlag(s: string): Buffer {
  let b64: unknown = s.trim();
  if (s.trim().startsWith('{')) {
    try {
      const j = JSON.parse(s) as { type?: unknown; value?: unknown; '@type'?: unknown; key?: unknown };
      if (j.type === COMETBFT_ED25519_TYPE) b64 = j.value;
      else if (j['@type'] === ED25519_PUBKEY_TYPE_URL) b64 = j.key;
      else b64 = undefined;
    } catch {
      b64 = undefined;
    }
  }
  const raw = typeof b64 === 'string' && /^[A-Za-z0-9+/]+={0,2}$/.test(b64) ? Buffer.from(b64, 'base64') : Buffer.alloc(0);
  if (raw.length !== ED25519_PUBKEY_LENGTH) {
    throw new UserError(
      `invalid --pubkey ${JSON.stringify(s)}: expected a ${ED25519_PUBKEY_LENGTH}-byte ed25519 key as base64, {"type":"${COMETBFT_ED25519_TYPE}","value":…} or {"@type":"${ED25519_PUBKEY_TYPE_URL}","key":…}`,
    );
  }
  return raw;
}

interface AddValidatorOptions extends KeyringOptions {
  moniker?: string;
  pubkey?: string;
}

async function addValidator(arg: string, powerArg: string, o: AddValidatorOptions): Promise<void> {
  if (!/^[0-9]+$/.test(powerArg) || BigInt(powerArg) <= 0n) throw new UserError(`invalid power ${JSON.stringify(powerArg)}: expected a positive integer`);
  const power = BigInt(powerArg);
  const home = homeOf(o);
  const input = new Input();
  let operator: string;
  try {
    operator = await resolveAccount(arg, o, input);
  } finally {
    input.close();
  }
  const pubKey = o.pubkey !== undefined ? parsePubKeyFlag(o.pubkey) : (await readPrivValidatorKey(home)).pubKey;
  const moniker = o.moniker ?? (await loadNodeConfig(home)).config.moniker;
  const path = genesisPath(home);
  const doc = await readGenesisFile(path);
  await withChainModules(async (mm) => {
    const auth = moduleState(doc, mm, 'auth');
    const vals = moduleState(doc, mm, 'validators');
    const key = addressKey(operator);
    if (!accountAddresses(auth).some((a) => addressKey(a) === key)) {
      throw new UserError(`account ${operator} is not in the genesis: add it first with "chaind genesis add-account ${arg} <coins>"`);
    }
    const existing = list(vals.validators, 'app_state.validators.validators') as {
      operator_address?: unknown;
      consensus_pubkey?: { key?: unknown; value?: unknown };
      moniker?: unknown;
    }[];
    const keyB64 = pubKey.toString('base64');
    for (const v of existing) {
      if (addressKey(v?.operator_address) === key) throw new UserError(`${operator} is already a genesis validator (moniker ${JSON.stringify(v.moniker)})`);
      if ((v?.consensus_pubkey?.key ?? v?.consensus_pubkey?.value) === keyB64) {
        throw new UserError(
          `consensus key ${keyB64} is already used by genesis validator ${JSON.stringify(v.moniker)} (${String(v.operator_address)}): each validator needs its own (--pubkey)`,
        );
      }
    }
    vals.validators = [
      ...existing,
      { operator_address: operator, consensus_pubkey: { '@type': ED25519_PUBKEY_TYPE_URL, key: keyB64 }, power: power.toString(), moniker },
    ];
    const appState = { ...doc.appState, validators: vals };
    checkAppState(mm, doc, appState, `add validator ${operator}`);
    await writeGenesisFile(path, { ...doc, appState });
  });
}

async function validate(file: string | undefined, o: HomeOptions): Promise<void> {
  const path = file ?? genesisPath(homeOf(o));
  const text = await readGenesisText(path);
  await withChainModules((mm) => {
    try {
      const doc = parseGenesis(text);
      try {
        validateGenesis(doc, mm);
      } catch (e) {
        throw explainGenesisError(e, doc);
      }
    } catch (e) {
      // the Cosmos SDK's wording
      if (e instanceof GenesisError) throw new UserError(`error validating genesis file ${path}: ${e.message}`);
      throw e;
    }
  });
  printLine(`File at ${path} is a valid genesis file`);
}

export function registerGenesisCommands(program: Command): void {
  const genesis = program.command('genesis').description('build and check the genesis file (<home>/config/genesis.json)');

  const addAccountCmd = genesis
    .command('add-account')
    .alias('add-genesis-account')
    .description('add a genesis account holding <coins>; the bank supply follows')
    .argument('<address_or_key_name>', `a ${DEFAULT_PREFIX}1… address, or the name of a key in the keyring`)
    .argument('<coins>', 'the balance, e.g. "1000000stake,50atom"');
  addKeyringOptions(addAccountCmd).action((arg: string, coins: string, o: KeyringOptions) => addAccount(arg, coins, o));

  const addValidatorCmd = genesis
    .command('add-validator')
    .description("add a genesis validator operated by that account (a genesis account already), signing with this node's consensus key")
    .argument('<key_name_or_address>', `the operator: a key name or a ${DEFAULT_PREFIX}1… address`)
    .argument('<power>', 'voting power, a positive integer')
    .option('--moniker <name>', "the validator's name (default: config.toml's moniker)")
    .option('--pubkey <key>', 'another node\'s ed25519 consensus key (base64, or its {"type","value"} JSON) instead of config/priv_validator_key.json\'s');
  addKeyringOptions(addValidatorCmd).action((arg: string, power: string, o: AddValidatorOptions) => addValidator(arg, power, o));

  const validateCmd = genesis
    .command('validate')
    .alias('validate-genesis')
    .description('validate a genesis file as the node will load it')
    .argument('[file]', 'the genesis file (default: <home>/config/genesis.json)');
  addHomeOption(validateCmd).action((file: string | undefined, o: HomeOptions) => validate(file, o));
}
