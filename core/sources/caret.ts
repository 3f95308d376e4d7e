import { SfError } from '../errors/index.js';
import { compareSemver, parseSemver, type SemVer } from '../skit/semver.js';

/**
 * Caret ranges, as npm reads them, for the hub releases `sf skit update` may move to:
 * `^1.2.3` := >=1.2.3 <2.0.0, `^0.2.3` := >=0.2.3 <0.3.0, `^0.0.3` := 0.0.3 only. A prerelease
 * is inside a range only when the range's own version is a prerelease of the same
 * major.minor.patch (`^1.2.3-beta.1` takes 1.2.3-beta.2, never 1.3.0-rc.1), so an update never
 * moves a stable install onto a prerelease. Only the full form `^x.y.z[-pre]` is recorded (Forge
 * writes `^<version installed>` itself); a range the user asks for is brought to it (askedCaret).
 */

/** The range Forge records for an install of `version`. */
export const caretOf = (version: string): string => `^${version}`;

/** The version of a `^x.y.z[-pre]` range, or null when `range` is not one. */
export function caretBase(range: string): SemVer | null {
  return range.startsWith('^') ? parseSemver(range.slice(1)) : null;
}

/** Whether `version` is inside the caret `range` (false for anything that is not a version or a range). */
export function satisfiesCaret(version: string, range: string): boolean {
  const base = caretBase(range);
  const v = parseSemver(version);
  if (!base || !v || compareSemver(version, range.slice(1)) < 0) return false;
  if (v.prerelease.length > 0 && !(base.prerelease.length > 0 && v.major === base.major && v.minor === base.minor && v.patch === base.patch)) return false;
  if (base.major > 0) return v.major === base.major;
  if (base.minor > 0) return v.major === 0 && v.minor === base.minor;
  return v.major === 0 && v.minor === 0 && v.patch === base.patch;
}

/** `^1.2.3` as `>=1.2.3 <2.0.0` (`^0.0.3` as `0.0.3 only`), for messages; the range itself when it is not one. */
export function describeCaret(range: string): string {
  const base = caretBase(range);
  if (!base) return range;
  const from = range.slice(1);
  if (base.major > 0) return `>=${from} <${base.major + 1}.0.0`;
  if (base.minor > 0) return `>=${from} <0.${base.minor + 1}.0`;
  return base.prerelease.length > 0 ? `>=${from} <0.0.${base.patch + 1}` : `${from} only`;
}

/** The newest of `versions` inside `range`, or undefined. */
export function newestInCaret(versions: readonly string[], range: string): string | undefined {
  return versions.filter((v) => satisfiesCaret(v, range)).sort(compareSemver).at(-1);
}

const RANGE_LIKE = /^[\^~<>=*]|[\s|]|(^|\.)[xX*](\.|$)/;

/**
 * The caret range a user asked for as a version (`owner/name@^1.2`, `--version ^1`), in the full
 * form Forge records: `^1` is `^1.0.0`, `^1.2` and `^0.2` are `^1.2.0` and `^0.2.0` (the same
 * releases as npm reads them). Undefined when `asked` is no range (an exact version, `latest`).
 * Other range syntaxes, and `^0`/`^0.0` (wider than any full caret range: npm reads `^0` as
 * >=0.0.0 <1.0.0), are SF_E_USAGE rather than a lookup of a version that cannot exist.
 */
export function askedCaret(asked: string): string | undefined {
  if (parseSemver(asked) || !RANGE_LIKE.test(asked)) return undefined;
  const partial = /^\^(\d+)(?:\.(\d+))?$/.exec(asked);
  const full = partial ? `^${partial[1]}.${partial[2] ?? '0'}.0` : asked;
  const base = caretBase(full);
  const tooWide = partial !== null && Number(partial[1]) === 0 && Number(partial[2] ?? 0) === 0;
  if (base && !tooWide) return full;
  throw new SfError('SF_E_USAGE', `"${asked}" is not a version or range Forge can follow`, {
    hint: tooWide
      ? `name the lowest release: ^0.0.<patch> takes that patch only, ^0.<minor>.0 the releases of that minor (as npm reads them)`
      : 'give an exact version (1.2.3), latest, or a caret range (^1, ^1.2 or ^1.2.3: that version and the newer ones before the next major)',
  });
}
