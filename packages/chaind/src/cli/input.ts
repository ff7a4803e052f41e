// Lines of stdin, asked for one at a time: passphrases, mnemonics, confirmations, hex keys. From a pipe
// they are read in order without prompts, so scripts and tests drive the CLI by writing lines:
//   printf '%s\n' "$PASSPHRASE" "$MNEMONIC" | chaind keys add k --recover --keyring-backend file
// On a terminal each is prompted for on stderr, and passphrases are not echoed.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { UserError } from './common.ts';

export class Input {
  private rl: Interface | undefined;
  private readonly queue: string[] = [];
  private waiter: ((line: string | undefined) => void) | undefined;
  private ended = false;
  private count = 0;
  readonly tty = process.stdin.isTTY === true;

  /** The next line; `what` names it in the error when stdin has ended. */
  async line(what: string, prompt: string, hidden = false): Promise<string> {
    this.count++;
    const line = this.tty ? await (hidden ? readHidden(prompt) : this.question(prompt)) : await this.next();
    if (line === undefined) throw new UserError(`expected ${what} on line ${this.count} of stdin, but stdin ended`);
    return line;
  }

  /** The keyring passphrase; on a terminal a new keyring's is asked twice. */
  async passphrase(keyringDir: string): Promise<string> {
    const p = await this.line('the keyring passphrase', 'Enter keyring passphrase: ', true);
    if (this.tty && isNewKeyring(keyringDir)) {
      const again = await this.line('the keyring passphrase again', 'Re-enter keyring passphrase: ', true);
      if (again !== p) throw new UserError('the passphrases do not match');
    }
    return p;
  }

  /** A y/N answer: true for "y" or "yes". */
  async confirm(question: string): Promise<boolean> {
    const a = await this.line(`an answer to "${question}" (y or N)`, `${question} [y/N]: `);
    return /^\s*y(es)?\s*$/i.test(a);
  }

  /** Lets the process exit: stdin is no longer read. */
  close(): void {
    this.rl?.close();
    this.rl = undefined;
  }

  private question(prompt: string): Promise<string | undefined> {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    return new Promise((res) => {
      rl.once('close', () => res(undefined));
      rl.question(prompt, (answer) => {
        res(answer);
        rl.close();
      });
    });
  }

  private next(): Promise<string | undefined> {
    if (this.queue.length > 0) return Promise.resolve(this.queue.shift());
    if (this.ended) return Promise.resolve(undefined);
    if (this.rl === undefined) {
      // created on first use only: a command that reads nothing must not wait for stdin to end
      this.rl = createInterface({ input: process.stdin, terminal: false, crlfDelay: Infinity });
      this.rl.on('line', (l) => {
        if (this.waiter !== undefined) {
          const w = this.waiter;
          this.waiter = undefined;
          w(l);
        } else this.queue.push(l);
      });
      this.rl.on('close', () => {
        this.ended = true;
        this.waiter?.(undefined);
        this.waiter = undefined;
      });
    }
    return new Promise((res) => (this.waiter = res));
  }
}

function isNewKeyring(dir: string): boolean {
  if (existsSync(join(dir, 'keyring.check'))) return false;
  return !existsSync(dir) || !readdirSync(dir).some((f) => f.endsWith('.info'));
}

/** A line typed on the terminal without echo. */
function readHidden(prompt: string): Promise<string | undefined> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((res, rej) => {
    let s = '';
    const done = (): void => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: string): void => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004' || ch === '\u0003') {
          done();
          if (ch === '\u0003') rej(new UserError('interrupted'));
          // Ctrl-D on an empty line is the end of input
          else res(ch === '\u0004' && s === '' ? undefined : s);
          return;
        }
        if (ch === '\u007f' || ch === '\b') s = [...s].slice(0, -1).join('');
        else s += ch;
      }
    };
    stdin.on('data', onData);
  });
}
