import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { DirectSecp256k1HdWallet, makeSignDoc, makeSignBytes } from '@cosmjs/proto-signing';
import { addressFromPublicKey, publicKeyFromPrivate, verifySignature } from '../crypto/index.ts';
import { Keyring, KeyringError, type KeyringBackend, type KeyringErrorKind } from './index.ts';

const MNEMONIC = 'surround miss nominee dream gap cross assault thank captain prosper drop duty group candy wealth weather scale put';
const PASS = 'correct horse battery staple';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'chaind-keyring-'));
  dirs.push(d);
  return d;
}
const open = (home: string, backend: KeyringBackend): Promise<Keyring> => Keyring.open(home, backend, { passphrase: PASS });
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** Every file in the keyring directory with its bytes, to prove a failed operation changed nothing. */
function snapshot(dir: string): Map<string, string> {
  return new Map(
    readdirSync(dir)
      .sort()
      .map((f) => [f, readFileSync(join(dir, f)).toString('base64')]),
  );
}

async function rejectsWith(p: Promise<unknown>, kind: KeyringErrorKind, message: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof KeyringError, `expected a KeyringError, got ${String(e)}`);
    assert.equal(e.kind, kind);
    assert.match(e.message, message);
    return true;
  });
}

async function cosmjsAddress(mnemonic: string): Promise<string> {
  const wallet = await DirectSecp256k1HdWallet.fromMnemonic(mnemonic, { prefix: 'chain' });
  return (await wallet.getAccounts())[0].address;
}

for (const backend of ['test', 'file'] as const) {
  describe(`${backend} backend`, () => {
    test('add, get, getByAddress, list, sign, delete round-trip (and survive reopening)', async () => {
      const home = tmp();
      const kr = await open(home, backend);
      assert.equal(kr.dir, join(home, `keyring-${backend}`));
      const bob = await kr.add('bob');
      assert.equal(bob.mnemonic.split(' ').length, 24);
      assert.equal(bob.address, await cosmjsAddress(bob.mnemonic));
      assert.equal(bob.type, 'local');
      const alice = await kr.recover('alice', MNEMONIC);
      assert.equal(alice.address, await cosmjsAddress(MNEMONIC), 'recover gives the CosmJS address');
      assert.equal(alice.mnemonic, MNEMONIC);

      const again = await open(home, backend);
      assert.deepEqual(await again.get('alice'), { name: 'alice', type: 'local', address: alice.address, pubkey: alice.pubkey });
      assert.equal(alice.pubkey.length, 33);
      assert.deepEqual(
        (await again.list()).map((k) => [k.name, k.address]),
        [
          ['alice', alice.address],
          ['bob', bob.address],
        ],
      );
      assert.equal((await again.getByAddress(bob.address)).name, 'bob');
      assert.equal((await again.getByAddress(bob.address.toUpperCase())).name, 'bob');

      const doc = makeSignBytes(makeSignDoc(new Uint8Array([1, 2, 3]), new Uint8Array([4, 5]), 'chain-1', 3));
      const byName = await again.sign('alice', doc);
      assert.equal(byName.length, 64);
      assert.ok(verifySignature(alice.pubkey, doc, byName));
      assert.equal(hex(await again.sign(alice.address, doc)), hex(byName), 'sign by address');
      const wallet = await DirectSecp256k1HdWallet.fromMnemonic(MNEMONIC, { prefix: 'chain' });
      const cosmjsSig = (await wallet.signDirect(alice.address, makeSignDoc(new Uint8Array([1, 2, 3]), new Uint8Array([4, 5]), 'chain-1', 3))).signature
        .signature;
      assert.equal(Buffer.from(byName).toString('base64'), cosmjsSig);

      await again.delete('bob');
      await rejectsWith(again.get('bob'), 'key-not-found', /key "bob" not found/);
      await rejectsWith(again.getByAddress(bob.address), 'key-not-found', new RegExp(`no key with address ${bob.address}`));
      assert.deepEqual(
        (await kr.list()).map((k) => k.name),
        ['alice'],
      );
      // Only keys, the check file (file backend) and no leftover temp files.
      assert.deepEqual(readdirSync(kr.dir).sort(), backend === 'file' ? ['alice.info', 'keyring.check'] : ['alice.info']);
    });

    test('files are 0600 in a 0700 directory', async () => {
      const kr = await open(tmp(), backend);
      await kr.add('k');
      assert.equal(statSync(join(kr.dir, 'k.info')).mode & 0o777, 0o600);
      assert.equal(statSync(kr.dir).mode & 0o777, 0o700);
    });

    test('export/import hex round-trips to the same address; 0x prefix and upper case accepted', async () => {
      const kr = await open(tmp(), backend);
      const alice = await kr.recover('alice', MNEMONIC);
      const exported = await kr.exportPrivateKeyHex('alice');
      assert.match(exported, /^[0-9a-f]{64}$/);
      assert.equal(addressFromPublicKey(publicKeyFromPrivate(Buffer.from(exported, 'hex'))), alice.address);
      const other = await open(tmp(), backend);
      assert.equal((await other.importPrivateKeyHex('imported', exported)).address, alice.address);
      assert.equal(await other.importPrivateKeyHex('x', '0x' + exported.toUpperCase()).catch((e: KeyringError) => e.kind), 'address-exists');
      assert.equal(await other.exportPrivateKeyHex('imported'), exported);
      assert.equal(hex(await other.privateKey('imported')), exported);
    });

    test('every error names the key and changes nothing on disk', async () => {
      const kr = await open(tmp(), backend);
      const alice = await kr.recover('alice', MNEMONIC);
      const before = snapshot(kr.dir);

      await rejectsWith(kr.add('alice'), 'key-exists', /key "alice" already exists/);
      await rejectsWith(kr.importPrivateKeyHex('alice', '11'.repeat(32)), 'key-exists', /key "alice" already exists/);
      await rejectsWith(kr.recover('alice2', MNEMONIC), 'address-exists', new RegExp(`"alice2".*${alice.address}.*"alice"`));
      const onNobody = [
        () => kr.get('nobody'),
        () => kr.delete('nobody'),
        () => kr.sign('nobody', new Uint8Array(1)),
        () => kr.exportPrivateKeyHex('nobody'),
        () => kr.privateKey('nobody'),
      ];
      for (const op of onNobody) await rejectsWith(op(), 'key-not-found', /key "nobody" not found/);
      await rejectsWith(
        kr.sign(addressFromPublicKey(publicKeyFromPrivate(Buffer.alloc(32, 7))), new Uint8Array(1)),
        'key-not-found',
        /no key with address chain1/,
      );

      const badNames: [string, RegExp][] = [
        ['', /empty/],
        ['a/b', /path separators/],
        ['a\\b', /path separators/],
        ['..', /"\.\."/],
        ['../etc/passwd', /path separators|"\.\."/],
        ['a..b', /"\.\."/],
        ['.', /"\."/],
        ['line\nbreak', /control characters/],
        ['nul\u0000', /control characters/],
        ['esc\u001b[31m', /control characters/],
        ['c1\u009b', /control characters/],
        ['x'.repeat(65), /at most 64 characters, got 65/],
      ];
      for (const [name, why] of badNames) {
        const shown = JSON.stringify(name).replace(/[\\[\].()]/g, '\\$&');
        await rejectsWith(kr.add(name), 'invalid-name', new RegExp(`invalid key name ${shown}: .*`));
        await rejectsWith(kr.add(name), 'invalid-name', why);
        await rejectsWith(kr.get(name), 'invalid-name', why);
        await rejectsWith(kr.delete(name), 'invalid-name', why);
        await rejectsWith(kr.importPrivateKeyHex(name, '11'.repeat(32)), 'invalid-name', why);
      }
      await rejectsWith(kr.add('m', { mnemonic: MNEMONIC.replace('surround', 'abandon') }), 'invalid-mnemonic', /invalid mnemonic for key "m"/);
      await rejectsWith(kr.add('m', { mnemonic: 'hello world' }), 'invalid-mnemonic', /invalid mnemonic for key "m"/);
      for (const bad of ['', '11'.repeat(31), '11'.repeat(33), 'zz'.repeat(32), '00'.repeat(32), 'ff'.repeat(32)]) {
        await rejectsWith(kr.importPrivateKeyHex('h', bad), 'invalid-private-key', /invalid private key (hex )?for key "h"/);
      }
      assert.deepEqual(snapshot(kr.dir), before);
      assert.deepEqual(
        (await kr.list()).map((k) => k.name),
        ['alice'],
      );
    });

    test('a 64-character name and unicode names are fine; a stray temp file from a crash is ignored', async () => {
      const kr = await open(tmp(), backend);
      await kr.add('x'.repeat(64));
      await kr.add('ключ ✓');
      writeFileSync(join(kr.dir, '.tmp-0123456789abcdef'), '{"half": ');
      assert.deepEqual(
        (await kr.list()).map((k) => k.name),
        ['x'.repeat(64), 'ключ ✓'],
      );
    });

    test('a renamed or edited key file is reported as corrupt, not used', async () => {
      const kr = await open(tmp(), backend);
      await kr.recover('alice', MNEMONIC);
      const file = join(kr.dir, 'alice.info');
      writeFileSync(join(kr.dir, 'mallory.info'), readFileSync(file));
      await rejectsWith(kr.get('mallory'), 'corrupt', /"mallory".*holds key "alice"/);
      writeFileSync(join(kr.dir, 'bad.info'), 'not json');
      await rejectsWith(kr.get('bad'), 'corrupt', /"bad".*not JSON/);
    });
  });
}

describe('file backend encryption', () => {
  test('the key file holds neither the mnemonic nor the private key in clear (the test backend does)', async () => {
    const [plain, enc] = [await open(tmp(), 'test'), await open(tmp(), 'file')];
    for (const kr of [plain, enc]) await kr.recover('alice', MNEMONIC);
    const priv = await enc.exportPrivateKeyHex('alice');
    const words = MNEMONIC.split(' ');
    const privB64 = Buffer.from(priv, 'hex').toString('base64');
    // Whole phrase, any word as a JSON value or followed by a space, the key as hex (either case) or base64.
    const leaks = (text: string): string[] => {
      const values: unknown[] = [];
      JSON.parse(text, (_k, v: unknown) => values.push(v));
      const found: string[] = text.includes(MNEMONIC) ? ['mnemonic'] : [];
      found.push(...words.filter((w) => values.includes(w) || text.includes(`${w} `)));
      found.push(...[priv, priv.toUpperCase(), privB64].filter((p) => text.includes(p)));
      return found;
    };
    const encText = readFileSync(join(enc.dir, 'alice.info'), 'utf8');
    assert.deepEqual(leaks(encText), []);
    assert.deepEqual(leaks(readFileSync(join(enc.dir, 'keyring.check'), 'utf8')), []);
    assert.deepEqual(leaks(readFileSync(join(plain.dir, 'alice.info'), 'utf8')), [priv], 'the check can fail: test backend stores the key in clear');
    const sealed = (JSON.parse(encText) as { crypto: Record<string, unknown> }).crypto;
    assert.equal(sealed.kdf, 'scrypt');
    assert.equal(sealed.cipher, 'aes-256-gcm');
    assert.deepEqual(Object.keys(sealed.kdfparams as object).sort(), ['N', 'dklen', 'p', 'r', 'salt']);
    const { N, r, p } = sealed.kdfparams as { N: number; r: number; p: number };
    assert.deepEqual({ N, r, p }, { N: 2 ** 17, r: 8, p: 1 }, "OWASP's scrypt cost, recorded in the file");
    assert.equal((sealed.nonce as string).length, 24);
    // Same key, same passphrase: fresh salt and nonce each time.
    const again = await open(tmp(), 'file');
    await again.recover('alice', MNEMONIC);
    const sealed2 = (JSON.parse(readFileSync(join(again.dir, 'alice.info'), 'utf8')) as { crypto: Record<string, unknown> }).crypto;
    assert.notEqual(sealed2.ciphertext, sealed.ciphertext);
    assert.notEqual((sealed2.kdfparams as { salt: string }).salt, (sealed.kdfparams as { salt: string }).salt);
  });

  test('a keyring written with the former scrypt cost (N=2^16, recorded in its files) still opens; new keys in it get the new cost', async () => {
    const home = tmp();
    cpSync(new URL('../../test/fixtures/keyring-n16/keyring-file', import.meta.url), join(home, 'keyring-file'), { recursive: true });
    const cost = (f: string): number =>
      (JSON.parse(readFileSync(join(home, 'keyring-file', f), 'utf8')) as { crypto: { kdfparams: { N: number } } }).crypto.kdfparams.N;
    assert.equal(cost('old.info'), 2 ** 16);
    await rejectsWith(Keyring.open(home, 'file', { passphrase: PASS }), 'wrong-passphrase', /wrong passphrase/);
    const kr = await Keyring.open(home, 'file', { passphrase: 'a long enough passphrase' });
    assert.equal(await kr.exportPrivateKeyHex('old'), '01'.repeat(32));
    assert.equal((await kr.get('old')).address, addressFromPublicKey(publicKeyFromPrivate(Buffer.alloc(32, 1))));
    await kr.recover('alice', MNEMONIC);
    assert.equal(cost('alice.info'), 2 ** 17);
    assert.equal(cost('old.info'), 2 ** 16, 'old files are left as they are');
  });

  test('a wrong passphrase fails at open with a clear error and leaves every file byte-identical', async () => {
    const home = tmp();
    const kr = await open(home, 'file');
    await kr.recover('alice', MNEMONIC);
    const before = snapshot(kr.dir);
    await rejectsWith(Keyring.open(home, 'file', { passphrase: PASS + '!' }), 'wrong-passphrase', new RegExp(`wrong passphrase for keyring ${kr.dir}`));
    await rejectsWith(Keyring.open(home, 'file', { passphrase: 'x' }), 'wrong-passphrase', /wrong passphrase for keyring/);
    await rejectsWith(Keyring.open(home, 'file'), 'passphrase-required', /needs a passphrase/);
    assert.deepEqual(snapshot(kr.dir), before);
    assert.equal((await (await open(home, 'file')).get('alice')).address, await cosmjsAddress(MNEMONIC));
  });

  test('without the check file, the passphrase is verified against an existing key, then the check file is restored', async () => {
    const home = tmp();
    const kr = await open(home, 'file');
    await kr.recover('alice', MNEMONIC);
    rmSync(join(kr.dir, 'keyring.check'));
    const before = snapshot(kr.dir);
    await rejectsWith(Keyring.open(home, 'file', { passphrase: 'not the passphrase' }), 'wrong-passphrase', /wrong passphrase for keyring/);
    assert.deepEqual(snapshot(kr.dir), before, 'no check file written for a wrong passphrase');
    await open(home, 'file');
    assert.deepEqual(readdirSync(kr.dir).sort(), ['alice.info', 'keyring.check']);
    await rejectsWith(Keyring.open(home, 'file', { passphrase: 'not the passphrase' }), 'wrong-passphrase', /wrong passphrase/);
  });

  test('a new file keyring needs a passphrase of at least 8 characters', async () => {
    const home = tmp();
    await rejectsWith(Keyring.open(home, 'file', { passphrase: 'short' }), 'weak-passphrase', /at least 8 characters/);
    await rejectsWith(Keyring.open(home, 'file', { passphrase: '' }), 'passphrase-required', /needs a passphrase/);
    assert.deepEqual(readdirSync(join(home, 'keyring-file')), []);
  });

  test('a tampered ciphertext or a swapped public key is detected', async () => {
    const kr = await open(tmp(), 'file');
    await kr.recover('alice', MNEMONIC);
    const file = join(kr.dir, 'alice.info');
    const original = readFileSync(file, 'utf8');
    const rec = JSON.parse(original) as { pubkey: string; crypto: { ciphertext: string } };
    const c = rec.crypto.ciphertext;
    writeFileSync(file, JSON.stringify({ ...rec, crypto: { ...rec.crypto, ciphertext: (c[0] === '0' ? '1' : '0') + c.slice(1) } }));
    await rejectsWith(kr.sign('alice', new Uint8Array(1)), 'wrong-passphrase', /cannot decrypt key "alice".*or the file was modified/);
    const otherPub = Buffer.from(publicKeyFromPrivate(Buffer.alloc(32, 9))).toString('base64');
    writeFileSync(file, JSON.stringify({ ...rec, pubkey: otherPub }));
    await rejectsWith(kr.sign('alice', new Uint8Array(1)), 'wrong-passphrase', /cannot decrypt key "alice"/);
    writeFileSync(file, original);
    assert.equal((await kr.sign('alice', new Uint8Array(1))).length, 64);
  });
});
