/**
 * The OpenTelemetry values of the reused resource attributes `host.arch` and `os.type`, from
 * Node's names, as the OTel JS host and OS resource detectors map them (plus ia32 -> x86, the
 * registry's well-known 32-bit x86 value): the observer's own resource must say `amd64` on the
 * machine whose hosts already report `amd64`, not Node's `x64`.
 */

const ARCH: Readonly<Record<string, string>> = { x64: 'amd64', ia32: 'x86', arm: 'arm32', ppc: 'ppc32' };
const OS: Readonly<Record<string, string>> = { win32: 'windows', sunos: 'solaris' };

/** `host.arch` of a Node `process.arch` / `os.arch()` value (arm64, ppc64, s390x ... are the same in both). */
export const otelHostArch = (nodeArch: string): string => (Object.hasOwn(ARCH, nodeArch) ? ARCH[nodeArch] : nodeArch);

/** `os.type` of a Node `process.platform` / `os.platform()` value (linux, darwin, freebsd ... are the same in both). */
export const otelOsType = (nodePlatform: string): string => (Object.hasOwn(OS, nodePlatform) ? OS[nodePlatform] : nodePlatform);
