// CometBFT as chaind's child (`chaind start`, --with-comet=true, as `gaiad start` runs it in process):
// `cometbft start --home <home> --proxy_app <chaind's socket>` on the node's own home, its log lines in
// chaind's log behind a prefix. It stays in chaind's process group (a group kill takes both) and exits by
// itself when chaind's socket goes (proxy/multi_app_conn.go killTMOnClientError), so it never outlives chaind.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** How CometBFT ended, with its last log lines (what an operator needs when it died on its own). */
export interface CometExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** True when chaind asked it to stop. */
  readonly requested: boolean;
  readonly lastLines: readonly string[];
}

export interface CometProcessOptions {
  readonly binary: string;
  readonly home: string;
  /** Where CometBFT dials chaind: unix:///path or tcp://host:port (overrides config.toml proxy_app). */
  readonly proxyApp: string;
  /** How long stop() waits after SIGTERM before SIGKILL. */
  readonly stopTimeoutMs: number;
  /** Receives each line CometBFT prints (stdout and stderr). */
  readonly onLine: (line: string) => void;
  /** Lines kept for CometExit.lastLines (default 20). */
  readonly keepLines?: number;
}

export class CometProcess {
  readonly exited: Promise<CometExit>;
  readonly pid: number | undefined;
  private readonly child: ChildProcess;
  private readonly stopTimeoutMs: number;
  private requested = false;
  private over = false;

  private constructor(o: CometProcessOptions) {
    this.stopTimeoutMs = o.stopTimeoutMs;
    const keep = o.keepLines ?? 20;
    const last: string[] = [];
    this.child = spawn(o.binary, ['start', '--home', o.home, '--proxy_app', o.proxyApp, '--abci', 'socket'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: process.env,
    });
    this.pid = this.child.pid;
    const closes: Promise<void>[] = [];
    for (const stream of [this.child.stdout, this.child.stderr]) {
      if (stream === null) continue;
      const rl = createInterface({ input: stream, crlfDelay: Infinity });
      rl.on('line', (line) => {
        last.push(line);
        if (last.length > keep) last.shift();
        o.onLine(line);
      });
      closes.push(new Promise((r) => rl.once('close', r)));
    }
    this.exited = new Promise((resolve) => {
      const done = (code: number | null, signal: NodeJS.Signals | null): void => {
        this.over = true;
        // the last lines are read to the end before they are reported
        void Promise.all(closes).then(() => resolve({ code, signal, requested: this.requested, lastLines: [...last] }));
      };
      this.child.once('exit', done);
      this.child.once('error', (e) => {
        last.push(`cannot run ${o.binary}: ${e.message}`);
        if (!this.over) done(null, null);
      });
    });
  }

  static start(o: CometProcessOptions): CometProcess {
    return new CometProcess(o);
  }

  get running(): boolean {
    return !this.over;
  }

  /** SIGTERM (CometBFT saves its state and exits), then SIGKILL after the stop timeout. */
  async stop(): Promise<CometExit> {
    this.requested = true;
    if (!this.over) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), this.stopTimeoutMs);
      timer.unref();
      const r = await this.exited;
      clearTimeout(timer);
      return r;
    }
    return this.exited;
  }
}
