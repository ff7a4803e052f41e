// `chaind keys …`: the keyring under <home>/keyring-<backend>, with the Cosmos SDK's commands and output.
// Everything asked for is read from stdin, one line each, in this order (see input.ts):
//   1. the keyring passphrase, with --keyring-backend file
//   2. then, per command: the mnemonic (add --recover), the hex key (import and import-hex without a file, or with "-"),
//      a y/N confirmation (delete without -y, export without -y)
import { Buffer } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import type { KeyInfo } from '@chaind/sdk/keyring';
import { addKeyringOptions, openKeyring, printErrLine, printLine, UserError, type KeyringOptions } from './common.ts';
import { Input } from './input.ts';

const SECP256K1_PUBKEY_TYPE_URL = '/cosmos.crypto.secp256k1.PubKey';

/** A key as the Cosmos SDK prints it (keyring.KeyOutput): the public key is a JSON string. */
interface KeyOutput {
  name: string;
  type: string;
  address: string;
  pubkey: string;
  mnemonic?: string;
}

const pubKeyJSON = (k: KeyInfo): string => JSON.stringify({ '@type': SECP256K1_PUBKEY_TYPE_URL, key: Buffer.from(k.pubkey).toString('base64') });
const keyOutput = (k: KeyInfo): KeyOutput => ({ name: k.name, type: k.type, address: k.address, pubkey: pubKeyJSON(k) });

/** A YAML scalar: plain when YAML would read it back as the same string, else single-quoted. */
function yamlScalar(s: string): string {
  const plain = /^[A-Za-z0-9_][A-Za-z0-9_./@-]*$/.test(s) && !/^(?:y|yes|n|no|true|false|on|off|null|~|[-+]?[0-9][0-9_.eE+-]*)$/i.test(s);
  return plain ? s : `'${s.replaceAll("'", "''")}'`;
}

/** The Cosmos SDK's text output: a YAML list, fields in alphabetical order. */
function yamlKeys(keys: readonly KeyOutput[]): string {
  return keys
    .map((k) => `- address: ${yamlScalar(k.address)}\n  name: ${yamlScalar(k.name)}\n  pubkey: ${yamlScalar(k.pubkey)}\n  type: ${yamlScalar(k.type)}`)
    .join('\n');
}

interface OutputOptions extends KeyringOptions {
  output: 'text' | 'json';
}

const outputOption = (): Option => new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text');

/** Runs `f` with stdin lines available, then lets go of stdin so the process can exit. */
async function withInput<T>(f: (input: Input) => Promise<T>): Promise<T> {
  const input = new Input();
  try {
    return await f(input);
  } finally {
    input.close();
  }
}

interface AddOptions extends OutputOptions {
  recover?: boolean;
  account: string;
  index: string;
  backup: boolean;
}

function hdNumber(s: string, flag: string): number {
  if (!/^[0-9]+$/.test(s) || Number(s) >= 0x80000000) throw new UserError(`invalid ${flag} ${JSON.stringify(s)}: expected an integer from 0 to 2147483647`);
  return Number(s);
}

async function add(name: string, o: AddOptions): Promise<void> {
  const account = hdNumber(o.account, '--account');
  const index = hdNumber(o.index, '--index');
  const key = await withInput(async (input) => {
    const ring = await openKeyring(o, input);
    // not echoed on a terminal: the mnemonic is the key, and would stay on screen and in scrollback
    const mnemonic = o.recover ? await input.line('the bip39 mnemonic', '> Enter your bip39 mnemonic\n', true) : undefined;
    return ring.add(name, { mnemonic, account, index });
  });
  const show = !o.recover && o.backup;
  if (o.output === 'json') {
    printLine(JSON.stringify(show ? { ...keyOutput(key), mnemonic: key.mnemonic } : keyOutput(key)));
    return;
  }
  printLine(yamlKeys([keyOutput(key)]));
  if (show) {
    printErrLine(
      `\n**Important** write this mnemonic phrase in a safe place.\nIt is the only way to recover your account if you ever forget your password.\n\n${key.mnemonic}`,
    );
  }
}

interface ListOptions extends OutputOptions {
  listNames?: boolean;
}

async function list(o: ListOptions): Promise<void> {
  const keys = await withInput(async (input) => (await openKeyring(o, input)).list());
  if (o.listNames) {
    for (const k of keys) printLine(k.name);
  } else if (o.output === 'json') {
    printLine(JSON.stringify(keys.map(keyOutput)));
  } else if (keys.length === 0) {
    printErrLine('No records were found in keyring');
  } else {
    printLine(yamlKeys(keys.map(keyOutput)));
  }
}

interface ShowOptions extends OutputOptions {
  address?: boolean;
  pubkey?: boolean;
}

async function show(nameOrAddress: string, o: ShowOptions): Promise<void> {
  if (o.address && o.pubkey) throw new UserError('--address and --pubkey cannot be used together');
  const key = await withInput(async (input) => {
    const ring = await openKeyring(o, input);
    // a name first, then an address, as the Cosmos SDK
    return ring.get(nameOrAddress).catch(async (e: unknown) => {
      if (!nameOrAddress.startsWith(`${ring.prefix}1`)) throw e;
      return ring.getByAddress(nameOrAddress);
    });
  });
  if (o.address) printLine(key.address);
  else if (o.pubkey) printLine(pubKeyJSON(key));
  else if (o.output === 'json') printLine(JSON.stringify(keyOutput(key)));
  else printLine(yamlKeys([keyOutput(key)]));
}

interface ConfirmOptions extends KeyringOptions {
  yes?: boolean;
}

async function remove(name: string, o: ConfirmOptions): Promise<void> {
  await withInput(async (input) => {
    const ring = await openKeyring(o, input);
    await ring.get(name);
    if (!o.yes && !(await input.confirm('Key reference will be deleted. Continue?'))) throw new UserError(`aborted: key "${name}" was not deleted`);
    await ring.delete(name);
  });
  printErrLine('Key deleted forever (uh oh!)');
}

interface ExportOptions extends ConfirmOptions {
  unarmoredHex?: boolean;
  unsafe?: boolean;
}

async function exportKey(name: string, o: ExportOptions): Promise<void> {
  if (!o.unarmoredHex || !o.unsafe) {
    throw new UserError('only the raw private key can be exported, and only knowingly: pass --unarmored-hex --unsafe (armored export is not supported)');
  }
  const hex = await withInput(async (input) => {
    const ring = await openKeyring(o, input);
    await ring.get(name);
    const q = 'WARNING: The private key will be exported as an unarmored hexadecimal string. USE AT YOUR OWN RISK. Continue?';
    if (!o.yes && !(await input.confirm(q))) throw new UserError(`aborted: key "${name}" was not exported`);
    return ring.exportPrivateKeyHex(name);
  });
  printLine(hex);
}

async function importKey(name: string, file: string | undefined, o: KeyringOptions): Promise<void> {
  await withInput(async (input) => {
    const ring = await openKeyring(o, input);
    const fromStdin = file === undefined || file === '-';
    const hex = fromStdin ? await input.line('the private key as 64 hex characters', 'Enter the private key (hex): ', true) : await readFile(file, 'utf8');
    await ring.importPrivateKeyHex(name, hex.trim());
  });
}

export function registerKeysCommands(program: Command): void {
  const keys = program
    .command('keys')
    .description('manage the keys of the keyring (<home>/keyring-<backend>)')
    .addHelpText(
      'after',
      '\nInput comes from stdin, one line each: first the passphrase (--keyring-backend file), then the mnemonic, hex key or y/N answer the command asks for.',
    );

  addKeyringOptions(
    keys
      .command('add')
      .description('create a key from a new 24-word mnemonic (shown once), or recover one with --recover')
      .argument('<name>', 'the key name')
      .option('--recover', 'recover the key from a bip39 mnemonic read from stdin')
      .option('--account <n>', "HD account number (m/44'/118'/account'/0/index)", '0')
      .option('--index <n>', 'HD address index', '0')
      .option('--no-backup', 'do not print the new mnemonic')
      .addOption(outputOption()),
  ).action((name: string, o: AddOptions) => add(name, o));

  addKeyringOptions(keys.command('list').description('list all keys').option('-n, --list-names', 'list names only').addOption(outputOption())).action(
    (o: ListOptions) => list(o),
  );

  addKeyringOptions(
    keys
      .command('show')
      .description('show a key by name or address')
      .argument('<name_or_address>', 'the key name or its address')
      .option('-a, --address', 'print the address only')
      .option('-p, --pubkey', 'print the public key only')
      .addOption(outputOption()),
  ).action((name: string, o: ShowOptions) => show(name, o));

  addKeyringOptions(
    keys
      .command('delete')
      .description('delete a key (asks for confirmation on stdin unless -y)')
      .argument('<name>', 'the key name')
      .option('-y, --yes', 'skip the confirmation'),
  ).action((name: string, o: ConfirmOptions) => remove(name, o));

  addKeyringOptions(
    keys
      .command('export')
      .description('print the raw private key as hex (asks for confirmation on stdin unless -y)')
      .argument('<name>', 'the key name')
      .option('--unarmored-hex', 'export the unarmored private key as hex (required)')
      .option('--unsafe', 'acknowledge that the printed key gives control of the account (required)')
      .option('-y, --yes', 'skip the confirmation'),
  ).action((name: string, o: ExportOptions) => exportKey(name, o));

  addKeyringOptions(
    keys
      .command('import-hex')
      .description('import a raw secp256k1 private key (64 hex characters) read from stdin, or from --file')
      .argument('<name>', 'the key name')
      .argument('[source]', '"-" for stdin (the default); a key given here is refused')
      .option('--file <path>', 'read the hex key from this file')
      .option('--key-type <type>', 'the key type (only secp256k1)', 'secp256k1'),
  ).action(async (name: string, source: string | undefined, o: KeyringOptions & { keyType: string; file?: string }) => {
    if (source !== undefined && source !== '-') {
      // never echo `source`: it is most likely the key itself
      throw new UserError(
        `refusing a private key on the command line, where shell history and the process list keep it: pipe it on stdin (chaind keys import-hex ${name} < key.hex) or pass --file <path>`,
      );
    }
    if (source === '-' && o.file !== undefined) throw new UserError('give the key on stdin ("-") or with --file, not both');
    if (o.keyType !== 'secp256k1') throw new UserError(`unsupported --key-type ${JSON.stringify(o.keyType)}: only secp256k1 keys are supported`);
    await importKey(name, o.file, o);
  });

  addKeyringOptions(
    keys
      .command('import')
      .description('import a raw secp256k1 private key (64 hex characters) from a file, or from stdin when the file is "-" or omitted')
      .argument('<name>', 'the key name')
      .argument('[hexfile]', 'a file holding the hex key'),
  ).action((name: string, file: string | undefined, o: KeyringOptions) => importKey(name, file, o));
}
