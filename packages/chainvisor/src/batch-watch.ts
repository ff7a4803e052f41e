import { readUpgradeInfoFile, writeUpgradeInfo } from '@chaind/upgrade-plan';
import { batchFilePath, readBatch, writeBatch } from './batch.ts';
import { upgradeInfoLimit } from './config.ts';
import { latestHeight } from './rpc.ts';
import { isPending, type UpgradeContext } from './upgrade.ts';
import { errorMessage } from '@chaind/errors';

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((r) => {
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      r();
    }
  });

/**
 * While the node runs (until `signal` aborts): every DAEMON_POLL_INTERVAL, reads data/upgrade-info.json.batch and the
 * node's height; while the node is below the lowest batch height, writes that entry as data/upgrade-info.json and
 * takes it out of the batch (as cosmovisor's batch watcher does). The upgrade-info.json watcher then stops the node
 * once it reaches the height, as for `add-upgrade --upgrade-height`. After an upgrade the relaunch starts this anew,
 * which moves the next entry.
 */
export async function watchBatch(ctx: UpgradeContext, signal: AbortSignal): Promise<void> {
  const { cfg, l, log } = ctx;
  const file = batchFilePath(l.upgradeInfoFile);
  let prev = -1n;
  let logged = '';
  const once = (level: 'info' | 'warn', m: string): void => {
    if (m !== logged) log[level](m);
    logged = m;
  };
  while (!signal.aborted) {
    try {
      await step();
    } catch (e) {
      once('warn', `checking ${file}: ${errorMessage(e)}`);
    }
    await sleep(cfg.pollIntervalMs, signal);
  }

  async function step(): Promise<void> {
    const b = readBatch(file);
    if (b.state === 'invalid') once('warn', `${file} is invalid: ${b.why}`);
    if (b.state === 'ok' && b.infos.length > 0) {
      const next = b.infos[0];
      const h = await latestHeight(cfg.rpcAddress, 1000);
      if (signal.aborted) return;
      if (h !== undefined && h > prev && h < next.height) {
        // never overwrite an upgrade the node or the operator wrote that is still to be carried out
        const cur = readUpgradeInfoFile(l.upgradeInfoFile, upgradeInfoLimit(cfg));
        if (cur.state === 'ok' && isPending(ctx, cur.info) && cur.info.height < next.height && cur.info.name !== next.name) {
          once(
            'info',
            `batch upgrade ${next.name} at height ${next.height} waits: ${l.upgradeInfoFile} holds upgrade ${cur.info.name} at height ${cur.info.height}, not done yet`,
          );
        } else {
          writeUpgradeInfo(l.upgradeInfoFile, next);
          writeBatch(file, b.infos.slice(1));
          prev = next.height;
          log.info(
            `batch upgrade ${next.name} at height ${next.height}: wrote ${l.upgradeInfoFile} (the node is at ${h}); ${b.infos.length - 1} left in ${file}`,
          );
        }
      } else if (h !== undefined && h >= next.height && prev < next.height) {
        // cosmovisor leaves such an entry (and every later one) untouched too: say so rather than wait silently
        once(
          'warn',
          `batch upgrade ${next.name} at height ${next.height} is behind the node (at ${h}): it is not carried out, nor any later one in ${file}; remove it from the file`,
        );
      }
    }
  }
}
