/** Node's names → Go's (GOOS/GOARCH), which release archives and the plan's "binaries" keys use. */
const GOOS: Readonly<Record<string, string>> = { win32: 'windows', sunos: 'solaris' };
const GOARCH: Readonly<Record<string, string>> = { x64: 'amd64', ia32: '386' };

/** A platform in Go's names: { os: "linux", arch: "amd64" }. */
export interface GoPlatform {
  readonly os: string;
  readonly arch: string;
}

/** This machine (or the given Node platform and arch) in Go's names; names Go shares with Node pass through. */
export function goPlatform(platform: string = process.platform, arch: string = process.arch): GoPlatform {
  // Node has no separate ppc64le: Linux on ppc64 is little-endian
  const goArch = arch === 'ppc64' ? (platform === 'linux' ? 'ppc64le' : 'ppc64') : (GOARCH[arch] ?? arch);
  return { os: GOOS[platform] ?? platform, arch: goArch };
}

/** This machine's key in the plan's "binaries": "linux/amd64", "darwin/arm64", … */
export function platformKey(platform: string = process.platform, arch: string = process.arch): string {
  const p = goPlatform(platform, arch);
  return `${p.os}/${p.arch}`;
}
