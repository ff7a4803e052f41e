import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { loadConfig, toToml, upgradeInfoLimit, type Config } from './config.ts';
import { ChainvisorError, EXIT } from './exit-codes.ts';
import { binaryIn, currentBinary, layout, readCurrent, switchCurrent, upgradeDir, upgradeFolderName, type Layout } from './layout.ts';
import { syncDirSync, syncFileSync } from './fsync.ts';
import { batchFilePath, checkBatch, parseBatch, parseUpgradeCsv, parseUpgradeList, readBatch, writeBatch, type BatchEntry } from './batch.ts';
import { createLogger, type Logger } from './log.ts';
import { PLAN_RECORD } from '@chaind/upgrade-plan';
import { autoPrepare, prepareUpgrade } from './prepare.ts';
import { FetchError, goToLower, readUpgradeInfoFile, UPGRADE_INFO_FILE, writeUpgradeInfo } from '@chaind/upgrade-plan';
import { checkReleaseFolder, installLocalRelease, localForm } from './fetch/index.ts';
import { releaseInstaller } from './release.ts';
import { run } from './run.ts';
import { bothMetrics, statusFileWriter, statusPath } from './status.ts';
import { createVisorMetrics, serveVisorMetrics, type VisorMetrics, type VisorMetricsServer } from './metrics.ts';
import { isPending, type UpgradeContext } from './upgrade.ts';
import { errorMessage } from '@chaind/errors';

export const VERSION = '0.1.0';

interface Env {
  readonly cfg: Config;
  readonly l: Layout;
  readonly log: Logger;
}

function setup(configFile: string | undefined): Env {
  const cfg = loadConfig({ env: process.env, ...(configFile !== undefined ? { configFile } : {}) });
  const log = createLogger({ disabled: cfg.disableLogs, color: cfg.colorLogs, timeFormat: cfg.timeFormatLogs });
  failLog = log;
  for (const w of cfg.warnings) log.warn(w);
  return { cfg, l: layout(cfg.home, cfg.daemonName), log };
}

/** Logger for failures: plain until the settings are known, then the configured one. */
let failLog: Logger = createLogger({ disabled: false, color: false, timeFormat: 'none' });

/** `run`'s arguments are the daemon's, verbatim; only --cosmovisor-config is taken out. */
export function splitRunArgs(args: readonly string[]): { configFile?: string; daemonArgs: string[] } {
  const out: string[] = [];
  let configFile: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--cosmovisor-config') {
      if (i + 1 >= args.length) throw new ChainvisorError(EXIT.CONFIG, '--cosmovisor-config needs a path');
      configFile = args[++i];
    } else if (a.startsWith('--cosmovisor-config=')) configFile = a.slice('--cosmovisor-config='.length);
    else out.push(a);
  }
  return { ...(configFile !== undefined ? { configFile } : {}), daemonArgs: out };
}

/** Copies a file into place atomically (temp flushed, then renamed; the folder flushed), executable. */
function installFile(src: string, dest: string): void {
  const tmp = `${dest}.tmp-${process.pid}`;
  copyFileSync(src, tmp);
  chmodSync(tmp, 0o755);
  syncFileSync(tmp);
  renameSync(tmp, dest);
  syncDirSync(dirname(dest));
}

/**
 * Installs the release at `path` as `dir` (genesis/ or upgrades/<name>/): a binary is copied to bin/<daemon>
 * (cosmovisor's form); a release folder or a .tar.gz/.tgz/.tar archive becomes the whole folder, checked and
 * renamed into place (the plan a switch copied there is kept). No checksum for a file the operator names.
 */
async function installGiven(path: string, dir: string, daemonName: string, log: Logger): Promise<void> {
  const src = resolve(path);
  // a refused release is a bad argument (2); failing to write it is 3
  const refused =
    (suffix = '') =>
    (e: unknown): never => {
      if (!(e instanceof FetchError)) throw e;
      throw new ChainvisorError(e.kind === 'io' ? EXIT.UPGRADE_FAILED : EXIT.CONFIG, e.message + suffix);
    };
  const form = await localForm(src).catch(refused());
  if (form === 'binary') {
    const dest = binaryIn(dir, daemonName);
    mkdirSync(binaryIn(dir, ''), { recursive: true });
    installFile(src, dest);
    // the binary is now the operator's, no longer the release downloaded for a plan (removed after the copy: a crash
    // in between leaves the record, so the folder is replaced rather than trusted)
    rmSync(join(dir, PLAN_RECORD), { force: true });
    log.info(`copied ${path} to ${dest}`);
    return;
  }
  if (form === 'folder') await checkReleaseFolder(src, daemonName).catch(refused());
  await installLocalRelease(src, form, { destDir: dir, daemonName, keep: [UPGRADE_INFO_FILE] }).catch(refused('; nothing installed'));
  log.info(`installed the release ${form} ${path} as ${dir}`);
}

function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  syncFileSync(tmp);
  renameSync(tmp, path);
  syncDirSync(dirname(path));
}

async function runCommand(args: readonly string[]): Promise<number> {
  const { configFile, daemonArgs } = splitRunArgs(args);
  const { cfg, l, log } = setup(configFile);
  // the status file (the node's upgrade dashboard reads it) is always kept; the metrics when configured
  let metrics: VisorMetrics = statusFileWriter(statusPath(l.root), log);
  let server: VisorMetricsServer | undefined;
  if (cfg.metricsAddress !== '') {
    const m = createVisorMetrics();
    server = await serveVisorMetrics(cfg.metricsAddress, cfg.metricsMaxConnections, m.registry);
    metrics = bothMetrics(m.metrics, metrics);
    log.info(`metrics at ${server.url}`);
  }
  try {
    const install = releaseInstaller(cfg, log, metrics);
    const ctx: UpgradeContext = { cfg, l, log, install, metrics };
    return await run(ctx, daemonArgs, cfg.prepareUpgrade ? { autoPrepare: (signal) => autoPrepare({ ...ctx, install }, signal) } : {});
  } finally {
    await server?.close();
  }
}

function program(result: { code: number }): Command {
  const p = new Command('chainvisor')
    .description('chainvisor: switches chaind binaries at an upgrade height (a cosmovisor-compatible sidecar)')
    .addOption(new Option('--cosmovisor-config <path>', 'config.toml to read (environment variables override it)'))
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  const env = (): Env => setup((p.opts() as { cosmovisorConfig?: string }).cosmovisorConfig);

  p.command('init')
    .argument('<path>', 'the genesis release: the binary, a release folder holding bin/$DAEMON_NAME, or a .tar.gz/.tgz of one')
    .description('create cosmovisor/{genesis,upgrades}, install the release as genesis, point current at genesis, write config.toml')
    .action(async (path: string) => {
      const { cfg, l, log } = env();
      const dest = binaryIn(l.genesisDir, l.daemonName);
      if (existsSync(dest)) log.info(`${dest} already exists: kept`);
      else await installGiven(path, l.genesisDir, l.daemonName, log);
      mkdirSync(l.upgradesDir, { recursive: true });
      if (lstatSync(l.current, { throwIfNoEntry: false }) !== undefined) readCurrent(l);
      else {
        switchCurrent(l, l.genesisDir);
        log.info(`current -> genesis`);
      }
      if (existsSync(l.configFile)) log.info(`${l.configFile} already exists: kept`);
      else {
        writeAtomic(l.configFile, toToml(cfg));
        log.info(`wrote ${l.configFile}`);
      }
    });

  p.command('run')
    .description('run the current binary with the given arguments, upgrading it when the node halts for an upgrade')
    .argument('[args...]', "the daemon's arguments");

  p.command('version')
    .description("print chainvisor's version, then the daemon's (`<daemon> version [args…]`; with -o json, its `version --long --output json` inside ours)")
    .option('--cosmovisor-only', "only chainvisor's version")
    .addOption(new Option('-o, --output <format>', 'text or json').choices(['text', 'json']).default('text'))
    .argument('[args...]', "passed to the daemon's version command (text output)")
    .allowUnknownOption()
    .action((args: string[], o: { cosmovisorOnly?: boolean; output: 'text' | 'json' }) => {
      if (o.cosmovisorOnly) {
        console.log(o.output === 'json' ? JSON.stringify({ cosmovisor_version: VERSION }) : `chainvisor version: ${VERSION}`);
        return;
      }
      const { l } = env();
      const bin = currentBinary(l);
      const failed = (r: ReturnType<typeof spawnSync>, cmd: string): ChainvisorError =>
        new ChainvisorError(EXIT.DAEMON_FAILED, `${bin} ${cmd} ${r.error ? `could not be run: ${r.error.message}` : `exited with code ${r.status}`}`);
      if (o.output === 'json') {
        // as cosmovisor: the daemon's own long JSON version, embedded as JSON
        const cmd = ['version', '--long', '--output', 'json'];
        const r = spawnSync(bin, cmd, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
        if (r.status !== 0) throw failed(r, cmd.join(' '));
        let app: unknown;
        try {
          app = JSON.parse(r.stdout) as unknown;
        } catch {
          throw new ChainvisorError(EXIT.DAEMON_FAILED, `${bin} ${cmd.join(' ')} did not print JSON: ${JSON.stringify(r.stdout.trim().slice(0, 200))}`);
        }
        console.log(JSON.stringify({ cosmovisor_version: VERSION, app_version: app }));
        return;
      }
      console.log(`chainvisor version: ${VERSION}`);
      const r = spawnSync(bin, ['version', ...args], { stdio: 'inherit' });
      if (r.status !== 0) throw failed(r, ['version', ...args].join(' '));
    });

  p.command('config')
    .description('print the resolved settings as config.toml')
    .action(() => {
      process.stdout.write(toToml(env().cfg));
    });

  p.command('add-upgrade')
    .description('install a release as upgrades/<name> (its binary at upgrades/<name>/bin/$DAEMON_NAME)')
    .argument('<name>', 'upgrade name')
    .argument('<path>', 'the binary, a release folder holding bin/$DAEMON_NAME, or a .tar.gz/.tgz of one')
    .option('--force', 'overwrite an installed release (and an existing data/upgrade-info.json)')
    .option('--upgrade-height <height>', 'also write data/upgrade-info.json for a non-governance upgrade at this height')
    .action(async (name: string, path: string, o: { force?: boolean; upgradeHeight?: string }) => {
      const { cfg, l, log } = env();
      const folder = upgradeFolderName(name, cfg.disableRecase, l.upgradesDir);
      if (o.upgradeHeight !== undefined && (!/^\d+$/.test(o.upgradeHeight) || BigInt(o.upgradeHeight) <= 0n))
        throw new ChainvisorError(EXIT.CONFIG, `--upgrade-height: expected a positive integer, got ${JSON.stringify(o.upgradeHeight)}`);
      const dir = upgradeDir(l, folder);
      const dest = binaryIn(dir, l.daemonName);
      if (existsSync(dest) && !o.force) throw new ChainvisorError(EXIT.CONFIG, `${dest} already exists: use --force to overwrite it`);
      // every refusal before anything is written
      if (o.upgradeHeight !== undefined && !o.force) {
        // the plan of an upgrade carried out already (`current` runs it) is kept by its folder: replacing it loses nothing
        const existing = readUpgradeInfoFile(l.upgradeInfoFile, upgradeInfoLimit(cfg));
        if (existing.state !== 'absent' && (existing.state !== 'ok' || isPending({ cfg, l, log }, existing.info)))
          throw new ChainvisorError(EXIT.CONFIG, `${l.upgradeInfoFile} already exists: use --force to overwrite it`);
      }
      await installGiven(path, dir, l.daemonName, log);
      if (o.upgradeHeight !== undefined) {
        writeUpgradeInfo(l.upgradeInfoFile, { name, height: BigInt(o.upgradeHeight), info: '' });
        log.info(`wrote ${l.upgradeInfoFile}: upgrade ${name} at height ${o.upgradeHeight}`);
      }
    });

  p.command('add-batch-upgrade')
    .description(
      'install several releases, each as upgrades/<name>, and write data/upgrade-info.json.batch: `run` carries each out at its height, without a governance plan',
    )
    .addOption(new Option('--upgrade-file <path>', 'a headerless CSV file of name,path,height lines').conflicts('upgradeList'))
    .addOption(new Option('--upgrade-list <list>', 'name:path:height,name:path:height…').conflicts('upgradeFile'))
    .option('--force', 'overwrite installed releases and a batch file that still holds upgrades')
    .action(async (o: { upgradeFile?: string; upgradeList?: string; force?: boolean }) => {
      let entries: BatchEntry[];
      if (o.upgradeFile !== undefined) {
        let text: string;
        try {
          text = readFileSync(o.upgradeFile, 'utf8');
        } catch (e) {
          throw new ChainvisorError(EXIT.CONFIG, `--upgrade-file: cannot read ${o.upgradeFile}: ${errorMessage(e)}`);
        }
        // cosmovisor's first form of --upgrade-file: the batch file itself, a JSON array (releases installed already)
        if (text.trimStart().startsWith('[')) {
          const { l, log } = env();
          const r = parseBatch(text);
          if (!r.ok) throw new ChainvisorError(EXIT.CONFIG, `--upgrade-file ${o.upgradeFile}: ${r.why}; nothing written`);
          const batchFile = batchFilePath(l.upgradeInfoFile);
          const old = readBatch(batchFile);
          if (old.state === 'ok' && old.infos.length > 0 && !o.force)
            throw new ChainvisorError(
              EXIT.CONFIG,
              `${batchFile} still holds ${old.infos.map((u) => `${u.name} at ${u.height}`).join(', ')}: use --force to replace it; nothing written`,
            );
          mkdirSync(l.dataDir, { recursive: true });
          writeBatch(batchFile, r.infos);
          log.info(`wrote ${batchFile}: ${r.infos.map((u) => `${u.name} at height ${u.height}`).join(', ')}`);
          return;
        }
        entries = parseUpgradeCsv(text, o.upgradeFile);
      } else if (o.upgradeList !== undefined) entries = parseUpgradeList(o.upgradeList);
      else throw new ChainvisorError(EXIT.CONFIG, 'add-batch-upgrade needs --upgrade-file <csv> or --upgrade-list name:path:height,…');
      const { cfg, l, log } = env();
      // every refusal before anything is written
      const folders = checkBatch(entries, (name) => upgradeFolderName(name, cfg.disableRecase, l.upgradesDir));
      const keep = new Set<number>();
      for (const [i, e] of entries.entries()) {
        const src = resolve(e.path);
        const form = await localForm(src).catch((err: unknown) => {
          if (err instanceof FetchError) throw new ChainvisorError(EXIT.CONFIG, `upgrade ${e.name}: ${err.message}; nothing installed`);
          throw err;
        });
        if (form === 'folder')
          await checkReleaseFolder(src, l.daemonName).catch((err: unknown) => {
            if (err instanceof FetchError) throw new ChainvisorError(EXIT.CONFIG, `upgrade ${e.name}: ${err.message}; nothing installed`);
            throw err;
          });
        const dest = binaryIn(upgradeDir(l, folders[i]), l.daemonName);
        // a path naming the installed binary itself (a script re-registering its upgrades) keeps it
        if (form === 'binary' && existsSync(dest) && realpathSync(dest) === realpathSync(src)) keep.add(i);
        else if (existsSync(dest) && !o.force) throw new ChainvisorError(EXIT.CONFIG, `${dest} already exists: use --force to overwrite it; nothing installed`);
      }
      const batchFile = batchFilePath(l.upgradeInfoFile);
      const old = readBatch(batchFile);
      if (old.state === 'ok' && old.infos.length > 0 && !o.force)
        throw new ChainvisorError(
          EXIT.CONFIG,
          `${batchFile} still holds ${old.infos.map((u) => `${u.name} at ${u.height}`).join(', ')}: use --force to replace it; nothing installed`,
        );
      for (const [i, e] of entries.entries()) {
        if (keep.has(i)) log.info(`${e.path} is the installed binary of upgrade ${e.name}: kept`);
        else await installGiven(e.path, upgradeDir(l, folders[i]), l.daemonName, log);
      }
      mkdirSync(l.dataDir, { recursive: true });
      // the plan name lower-cased as cosmovisor writes it (unless COSMOVISOR_DISABLE_RECASE): the new release knows it so
      const infos = entries
        .map((e) => ({ name: cfg.disableRecase ? e.name : goToLower(e.name), height: e.height, info: '' }))
        .sort((a, b) => (a.height < b.height ? -1 : a.height > b.height ? 1 : 0));
      writeBatch(batchFile, infos);
      log.info(`wrote ${batchFile}: ${infos.map((u) => `${u.name} at height ${u.height}`).join(', ')}`);
    });

  p.command('show-upgrade-info')
    .description('print data/upgrade-info.json')
    .action(() => {
      const { cfg, l } = env();
      const r = readUpgradeInfoFile(l.upgradeInfoFile, upgradeInfoLimit(cfg));
      if (r.state === 'absent') {
        console.log(`no upgrade info: ${l.upgradeInfoFile} does not exist`);
        return;
      }
      if (r.state !== 'ok') throw new ChainvisorError(EXIT.UPGRADE_INFO_INVALID, `${l.upgradeInfoFile} is invalid: ${r.why}`);
      console.log(r.info.raw);
    });

  p.command('prepare-upgrade')
    .description("download and verify the scheduled plan's release into upgrades/<name> ahead of the halt")
    .action(async () => {
      const { cfg, l, log } = env();
      await prepareUpgrade({ cfg, l, log, install: releaseInstaller(cfg, log) });
    });

  p.hook('postAction', () => {
    result.code = EXIT.OK;
  });
  return p;
}

/** The CLI; resolves with the exit code, having printed one clear line for any failure. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    // `run` is parsed by hand so the daemon's flags pass through untouched (commander would claim --help, --version…)
    let i = 0;
    while (i < argv.length && argv[i].startsWith('-')) i += argv[i] === '--cosmovisor-config' ? 2 : 1;
    if (argv[i] === 'run') {
      const before = argv.slice(0, i);
      return await runCommand([...before, ...argv.slice(i + 1)]);
    }
    const result = { code: EXIT.OK as number };
    await program(result).parseAsync([...argv], { from: 'user' });
    return result.code;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.OK : EXIT.CONFIG;
    if (e instanceof ChainvisorError) {
      failLog.error(e.message);
      return e.code;
    }
    failLog.error(`internal error: ${(e as Error).stack ?? String(e)}`);
    return EXIT.INTERNAL;
  }
}
