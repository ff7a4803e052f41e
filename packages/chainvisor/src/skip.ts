// The daemon's `--unsafe-skip-upgrades`, read from the arguments chainvisor passes through: an upgrade
// at a listed height is not pending, so the operator's standard skip procedure works under chainvisor.

const FLAG = '--unsafe-skip-upgrades';

/**
 * The heights listed by `--unsafe-skip-upgrades` in `args`: `--unsafe-skip-upgrades=H1,H2`, or the flag
 * followed by values up to the next argument starting with `-` (`H1 H2`, cosmovisor's form, or `H1,H2`,
 * chaind's). What is not a height is ignored, as cosmovisor ignores it; the daemon refuses it itself.
 */
export function skipUpgradeHeights(args: readonly string[]): ReadonlySet<bigint> {
  const heights = new Set<bigint>();
  const add = (value: string): void => {
    for (const part of value.split(',')) if (/^\d+$/.test(part.trim())) heights.add(BigInt(part.trim()));
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') break;
    if (a.startsWith(`${FLAG}=`)) add(a.slice(FLAG.length + 1));
    else if (a === FLAG) for (let j = i + 1; j < args.length && !args[j].startsWith('-'); j++) add(args[j]);
  }
  return heights;
}
