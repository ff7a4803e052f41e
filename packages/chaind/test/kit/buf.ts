// `buf curl` (a gRPC client of another implementation, through the server's reflection or given descriptors).
import { createRequire } from 'node:module';
import { runInGroup } from '@chaind/upgrade-plan/testing';

const BUF = createRequire(import.meta.url).resolve('@bufbuild/buf/bin/buf');

export interface Curl {
  readonly ok: boolean;
  /** stdout when it succeeded; stdout and stderr when it failed */
  readonly out: string;
}

/** `buf curl --protocol grpc --http2-prior-knowledge <args>` in a child process (async: the server may answer from this process). */
export async function bufCurl(args: readonly string[]): Promise<Curl> {
  const r = await runInGroup(process.execPath, [BUF, 'curl', '--protocol', 'grpc', '--http2-prior-knowledge', ...args], { timeoutMs: 60_000 });
  return r.code === 0 ? { ok: true, out: r.stdout } : { ok: false, out: `${r.stdout}${r.stderr}${r.timedOut ? '\n(buf curl timed out after 60 s)' : ''}` };
}
