/**
 * Semantic Versioning 2.0.0: parse and compare (precedence per semver.org §11). Build metadata is
 * rejected for release versions, since `1.0.0+a` and `1.0.0+b` would have equal precedence and
 * break "one version, one release".
 */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?$/;

const NUMERIC = /^\d+$/;

/** Longest version accepted (npm's semver has the same bound): versions are parts of storage keys. */
export const MAX_VERSION_LENGTH = 256;

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  /** identifiers as written; numeric ones (digits only, no leading zero) may exceed 2^53 */
  prerelease: string[];
}

/** Parses `x.y.z[-pre]`, or returns null. */
export function parseSemver(v: string): SemVer | null {
  if (v.length > MAX_VERSION_LENGTH) return null;
  const m = SEMVER.exec(v);
  if (!m) return null;
  const nums = [m[1], m[2], m[3]].map(Number);
  if (nums.some((n) => !Number.isSafeInteger(n))) return null;
  return {
    major: nums[0],
    minor: nums[1],
    patch: nums[2],
    prerelease: m[4] ? m[4].split('.') : [],
  };
}

/** Precedence comparison: negative when a < b. Both must be valid. */
export function compareSemver(a: string, b: string): number {
  const x = parseSemver(a);
  const y = parseSemver(b);
  if (!x || !y) throw new Error(`not semver: ${x ? b : a}`);
  for (const k of ['major', 'minor', 'patch'] as const) if (x[k] !== y[k]) return x[k] - y[k];
  if (!x.prerelease.length || !y.prerelease.length) return y.prerelease.length - x.prerelease.length;
  for (let i = 0; i < Math.max(x.prerelease.length, y.prerelease.length); i++) {
    const p = x.prerelease[i];
    const q = y.prerelease[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    if (p === q) continue;
    const pn = NUMERIC.test(p);
    const qn = NUMERIC.test(q);
    // numeric identifiers compare as numbers of any size: without leading zeros, the longer is larger
    if (pn && qn) return p.length !== q.length ? p.length - q.length : p < q ? -1 : 1;
    if (pn) return -1;
    if (qn) return 1;
    return p < q ? -1 : 1;
  }
  return 0;
}

/** The highest version, preferring stable releases when any exist. */
export function latestVersion(versions: readonly string[]): string | undefined {
  const valid = versions.filter((v) => parseSemver(v));
  const stable = valid.filter((v) => !v.includes('-'));
  const pool = stable.length ? stable : valid;
  return pool.sort(compareSemver).at(-1);
}
