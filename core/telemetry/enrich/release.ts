import { releaseLabel } from '../../install/requests.js';
import type { ReleaseRef } from '../../library/types.js';

/**
 * `artifact.version` of a release: the version, else `ref@commit` as the CLI labels it (a branch
 * name alone names every commit of the branch), else nothing: a source without version or commit
 * (a local directory) is identified by its bundle hash (`artifact.hash`) alone.
 */
export function artifactVersion(release: ReleaseRef): string | undefined {
  // the bundle hash argument is never reached: releaseLabel uses it only without version and commit
  return release.version || release.commit ? releaseLabel(release, '') : undefined;
}
