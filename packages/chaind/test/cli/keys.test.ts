// `chaind keys …`, run as the real binary: Cosmos' output shapes, a full add/list/show/export/delete/import
// round trip on the test backend, the file backend driven through stdin, and recovery that derives the
// same address as CosmJS.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { DirectSecp256k1HdWallet, makeCosmoshubPath } from '@cosmjs/proto-signing';
import { BIN, chaind, childEnv, fails, killGroup, ok, removeTmpDirs, TEST_BACKEND_WARNING, tmpDir, withoutWarning } from '@chaind/chaind/testing';

after(removeTmpDirs);

const T = ['--keyring-backend', 'test'];
const F = ['--keyring-backend', 'file'];
const PASS = 'a long enough passphrase';
/** The BIP39 test vector every Cosmos tool knows. */
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

interface KeyJSON {
  name: string;
  type: string;
  address: string;
  pubkey: string;
  mnemonic?: string;
}

async function cosmjsAddress(mnemonic: string, index?: number): Promise<string> {
  const wallet = await DirectSecp256k1HdWallet.fromMnemonic(mnemonic, {
    prefix: 'chain',
    ...(index === undefined ? {} : { hdPaths: [makeCosmoshubPath(index)] }),
  });
  return (await wallet.getAccounts())[0].address;
}

describe('keys on the test backend', () => {
  const home = tmpDir();
  const k = (...args: string[]): string[] => ['keys', ...args, ...T, '--home', home];

  test('add prints the key as Cosmos does, and the mnemonic once, with its warning, on stderr', async () => {
    const r = await ok(k('add', 'alice'));
    const m =
      /^- address: (chain1[02-9ac-hj-np-z]{38})\n {2}name: alice\n {2}pubkey: '\{"@type":"\/cosmos\.crypto\.secp256k1\.PubKey","key":"([A-Za-z0-9+/]{44})"\}'\n {2}type: local\n$/.exec(
        r.stdout,
      );
    assert.ok(m, r.stdout);
    assert.match(r.stderr, TEST_BACKEND_WARNING);
    const words =
      /^\n\*\*Important\*\* write this mnemonic phrase in a safe place\.\nIt is the only way to recover your account if you ever forget your password\.\n\n((?:[a-z]+ ){23}[a-z]+)\n$/.exec(
        withoutWarning(r.stderr),
      );
    assert.ok(words, r.stderr);
    // the mnemonic shown is the key's: CosmJS derives the same address from it
    assert.equal(await cosmjsAddress(words[1]), m[1]);
    // and it is not stored anywhere
    for (const f of readdirSync(join(home, 'keyring-test'))) assert.ok(!readFileSync(join(home, 'keyring-test', f), 'utf8').includes(words[1]));
  });

  test('add -o json carries the mnemonic in the object; --no-backup prints none', async () => {
    const j = JSON.parse((await ok(k('add', 'bob', '-o', 'json'))).stdout) as KeyJSON;
    assert.deepEqual(Object.keys(j), ['name', 'type', 'address', 'pubkey', 'mnemonic']);
    assert.equal(j.name, 'bob');
    assert.equal(j.type, 'local');
    assert.equal(await cosmjsAddress(j.mnemonic as string), j.address);
    assert.equal(JSON.parse(j.pubkey)['@type'], '/cosmos.crypto.secp256k1.PubKey');
    const r = await ok(k('add', 'carol', '--no-backup'));
    assert.equal(withoutWarning(r.stderr), '');
  });

  test('list, show, show -a, show -p, show by address', async () => {
    const list = JSON.parse((await ok(k('list', '-o', 'json'))).stdout) as KeyJSON[];
    assert.deepEqual(
      list.map((x) => x.name),
      ['alice', 'bob', 'carol'],
    );
    assert.equal((await ok(k('list', '-n'))).stdout, 'alice\nbob\ncarol\n');
    const text = (await ok(k('list'))).stdout;
    assert.equal(text.match(/^- address: /gm)?.length, 3);
    const bob = list[1];
    assert.equal((await ok(k('show', 'bob', '-a'))).stdout, `${bob.address}\n`);
    assert.equal((await ok(k('show', 'bob', '-p'))).stdout, `${bob.pubkey}\n`);
    assert.deepEqual(JSON.parse((await ok(k('show', bob.address, '-o', 'json'))).stdout), {
      name: 'bob',
      type: 'local',
      address: bob.address,
      pubkey: bob.pubkey,
    });
    await fails(k('show', 'nobody'), [`key "nobody" not found in keyring ${join(home, 'keyring-test')}`]);
    await fails(k('add', 'bob'), ['key "bob" already exists']);
  });

  test('export → delete → import (from a file, then from stdin), import-hex give the key back', async () => {
    const address = (await ok(k('show', 'alice', '-a'))).stdout.trim();
    await fails(k('export', 'alice'), ['pass --unarmored-hex --unsafe']);
    // without -y the confirmation is read from stdin; anything but y/yes keeps the key secret
    const no = await fails(k('export', 'alice', '--unarmored-hex', '--unsafe'), ['aborted: key "alice" was not exported'], { input: 'n\n' });
    assert.equal(no.stdout, '');
    const hex = (await ok(k('export', 'alice', '--unarmored-hex', '--unsafe'), { input: 'y\n' })).stdout.trim();
    assert.match(hex, /^[0-9a-f]{64}$/);
    assert.equal((await ok(k('export', 'alice', '--unarmored-hex', '--unsafe', '-y'))).stdout.trim(), hex);

    await fails(k('delete', 'alice'), ['aborted: key "alice" was not deleted'], { input: 'no\n' });
    await ok(k('show', 'alice'));
    const del = await ok(k('delete', 'alice', '-y'));
    assert.equal(withoutWarning(del.stderr), 'Key deleted forever (uh oh!)\n');
    await fails(k('show', 'alice'), ['key "alice" not found']);

    const file = join(tmpDir(), 'alice.hex');
    writeFileSync(file, `${hex}\n`);
    await ok(k('import', 'alice', file));
    assert.equal((await ok(k('show', 'alice', '-a'))).stdout.trim(), address);
    await fails(k('import', 'alice2', file), [`its address ${address} is already in keyring`, 'as key "alice"']);

    await ok(k('delete', 'alice'), { input: 'y\n' });
    await ok(k('import', 'alice'), { input: `${hex}\n` });
    assert.equal((await ok(k('show', 'alice', '-a'))).stdout.trim(), address);
    await fails(k('import', 'zed', '-'), ['invalid private key hex for key "zed"'], { input: 'xyz\n' });

    // import-hex (the SDK v0.50 name): the hex from stdin, "-" or --file, never from the command line
    await ok(k('delete', 'alice', '-y'));
    await ok(k('import-hex', 'alice'), { input: `${hex}\n` });
    assert.equal((await ok(k('show', 'alice', '-a'))).stdout.trim(), address);
    await ok(k('delete', 'alice', '-y'));
    await ok(k('import-hex', 'alice', '-'), { input: `${hex}\n` });
    await ok(k('delete', 'alice', '-y'));
    await ok(k('import-hex', 'alice', '--file', file));
    assert.equal((await ok(k('show', 'alice', '-a'))).stdout.trim(), address);
    await fails(k('import-hex', 'zed', '--key-type', 'ed25519'), ['unsupported --key-type "ed25519": only secp256k1 keys are supported'], {
      input: `${hex}\n`,
    });
    await fails(k('import-hex', 'zed', '-', '--file', file), ['not both']);
  });

  test('import-hex refuses a key on the command line, saying why and how, without echoing it', async () => {
    const hex = 'ab'.repeat(32);
    const r = await fails(k('import-hex', 'cmdline', hex), [
      'refusing a private key on the command line, where shell history and the process list keep it',
      'chaind keys import-hex cmdline < key.hex',
      '--file <path>',
    ]);
    assert.ok(!r.stderr.includes(hex) && !r.stdout.includes(hex), 'the key is not printed back');
    await fails(k('show', 'cmdline'), ['key "cmdline" not found']);
  });

  test('the test backend warns on stderr, in one line, that keys are kept in clear: once per home, not on every command', async () => {
    const fresh = tmpDir();
    const warning = (h: string): string =>
      `WARNING: the test keyring backend keeps private keys unencrypted in ${join(h, 'keyring-test')}; use it for development only (--keyring-backend file)\n`;
    assert.equal((await ok(['keys', 'list', '-n', ...T, '--home', fresh])).stderr, warning(fresh));
    for (const args of [
      ['list', '-n'],
      ['add', 'dave', '--no-backup'],
      ['show', 'dave', '-a'],
    ]) {
      assert.equal((await ok(['keys', ...args, ...T, '--home', fresh])).stderr, '', `keys ${args.join(' ')}: warned already`);
    }
    // another home is warned about its own keys; deleting the marker brings the warning back
    const other = tmpDir();
    assert.equal((await ok(['keys', 'list', '-n', ...T, '--home', other])).stderr, warning(other));
    rmSync(join(fresh, 'keyring-test', 'unencrypted-warning-shown'));
    assert.equal((await ok(['keys', 'list', '-n', ...T, '--home', fresh])).stderr, warning(fresh));
  });

  test('recover from a known mnemonic gives the address CosmJS derives', async () => {
    const want = await cosmjsAddress(MNEMONIC);
    const r = await ok(k('add', 'vector', '--recover', '-o', 'json'), { input: `${MNEMONIC}\n` });
    const j = JSON.parse(r.stdout) as KeyJSON;
    assert.equal(j.address, want);
    assert.equal(j.mnemonic, undefined, 'a recovered mnemonic is not printed back');
    // BIP44 account/index select other keys of the same mnemonic
    const j2 = JSON.parse((await ok(k('add', 'vector-1', '--recover', '--index', '1', '-o', 'json'), { input: `${MNEMONIC}\n` })).stdout) as KeyJSON;
    assert.equal(j2.address, await cosmjsAddress(MNEMONIC, 1));
    assert.notEqual(j2.address, want);
    await fails(k('add', 'bad', '--recover'), ['invalid mnemonic for key "bad"'], { input: 'abandon abandon abandon\n' });
    await fails(k('add', 'none', '--recover'), ['expected the bip39 mnemonic on line 1 of stdin, but stdin ended']);
  });
});

describe('keys on the file backend, passphrase on stdin', () => {
  const home = tmpDir();
  const k = (...args: string[]): string[] => ['keys', ...args, ...F, '--home', home];

  test('add then show with the passphrase; a wrong or missing one is refused', async () => {
    await fails(k('add', 'x'), ['must be at least 8 characters'], { input: 'short\n' });
    const added = JSON.parse((await ok(k('add', 'sam', '-o', 'json'), { input: `${PASS}\n` })).stdout) as KeyJSON;
    assert.equal((await ok(k('show', 'sam', '-a'), { input: `${PASS}\n` })).stdout, `${added.address}\n`);
    await fails(k('show', 'sam', '-a'), [`wrong passphrase for keyring ${join(home, 'keyring-file')}`], { input: 'not the passphrase\n' });
    await fails(k('list'), ['expected the keyring passphrase on line 1 of stdin, but stdin ended']);
    // the key file holds no private key in clear
    const hex = (await ok(k('export', 'sam', '--unarmored-hex', '--unsafe'), { input: `${PASS}\ny\n` })).stdout.trim();
    const files = readdirSync(join(home, 'keyring-file'));
    assert.ok(files.includes('sam.info'));
    assert.ok(!readFileSync(join(home, 'keyring-file', 'sam.info'), 'utf8').includes(hex));
  });

  test('recover: the passphrase first, then the mnemonic', async () => {
    const r = await ok(k('add', 'rec', '--recover'), { input: `${PASS}\n${MNEMONIC}\n` });
    assert.match(r.stdout, new RegExp(`^- address: ${await cosmjsAddress(MNEMONIC)}\n`));
    const list = await chaind(k('list', '-o', 'json'), { input: `${PASS}\n` });
    assert.doesNotMatch(list.stderr, /WARNING/, 'no test-backend warning for the file backend');
    assert.deepEqual(
      (JSON.parse(list.stdout) as KeyJSON[]).map((x) => x.name),
      ['rec', 'sam'],
    );
  });

  test('delete: the passphrase, then the confirmation', async () => {
    await ok(k('delete', 'rec'), { input: `${PASS}\ny\n` });
    assert.equal((await ok(k('list', '-n'), { input: `${PASS}\n` })).stdout, 'sam\n');
  });
});

describe('keys on a terminal', () => {
  const quote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;

  test('add --recover does not echo the mnemonic typed on a terminal', async (t) => {
    const home = tmpDir();
    const cmd = [process.execPath, BIN, 'keys', 'add', 'typed', '--recover', ...T, '--home', home, '-o', 'json'].map(quote).join(' ');
    // script(1) runs the command on a pseudo-terminal; all the terminal shows comes back on its stdout
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], { env: childEnv(), stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    t.after(() => killGroup(child.pid));
    let screen = '';
    const closed = new Promise<number | null>((res) => child.on('close', res));
    await new Promise<void>((res) => {
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        screen += d;
        if (screen.includes('Enter your bip39 mnemonic')) res();
      });
    });
    // the prompt is written just before the terminal's mode is set: give that a moment
    await new Promise((res) => setTimeout(res, 300));
    child.stdin.write(`${MNEMONIC}\r`);
    const code = await closed;
    child.stdin.end();
    assert.equal(code, 0, screen);
    assert.ok(screen.includes(await cosmjsAddress(MNEMONIC)), `the key was recovered:\n${screen}`);
    assert.ok(!screen.includes('abandon'), `no word of the mnemonic on the terminal:\n${screen}`);
  });
});
