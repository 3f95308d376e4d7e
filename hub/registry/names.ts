import { SfError } from '../../core/errors/index.js';
import { MAX_VERSION_LENGTH, parseSemver } from '../../core/skit/semver.js';
import { isValidSkitId } from '../../core/skit/skit-id.js';

/** `owner/name` of a registry route, checked against the SKIT id rule (lowercase, digits, inner hyphens). */
export function skitIdOf(owner: string, name: string): string | undefined {
  const id = `${owner}/${name}`;
  return isValidSkitId(id) ? id : undefined;
}

/**
 * A release version from a route: semver without build metadata. Used on publish, where a bad
 * version is the caller's mistake (400), not a lookup miss.
 */
export function checkVersion(version: string): string {
  if (version.length > MAX_VERSION_LENGTH) {
    throw new SfError('SF_E_USAGE', `the release version is ${version.length} characters long; the limit is ${MAX_VERSION_LENGTH}`, {
      hint: 'use a shorter semantic version x.y.z or x.y.z-pre, e.g. 1.0.0',
    });
  }
  if (!parseSemver(version)) {
    throw new SfError('SF_E_USAGE', `"${version}" is not a release version`, {
      hint: 'use semantic versioning x.y.z or x.y.z-pre (no +build metadata), e.g. 1.0.0',
    });
  }
  return version;
}

/** True when `version` is a well-formed release version. */
export const isVersion = (version: string): boolean => parseSemver(version) !== null;

/** Splits `1.2.3.tgz` into its version; undefined when the file name is not `<version>.tgz`. */
export function versionOfArchiveName(file: string): string | undefined {
  if (!file.endsWith('.tgz')) return undefined;
  const version = file.slice(0, -'.tgz'.length);
  return isVersion(version) ? version : undefined;
}
