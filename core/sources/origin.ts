/**
 * Where a recorded source comes from, apart from which release of it: pure string work on the
 * canonical source, so planners and list output can use it without loading any resolver.
 *
 * A hub install that named its version (`owner/name@1.0.0`, a release URL, `--version 1.0.0`) is
 * pinned to it, as a git source is to the ref it names: its canonical source is the release URL
 * `<hub>/r/owner/name/<version>`, which `sf skit update` resolves to that release again. Without a
 * version (or with `--version latest`) it is the SKIT URL `<hub>/s/owner/name`, which resolves to
 * the latest release. Records written before pins existed name the SKIT URL: they stay unpinned.
 */

/** The fields of a recorded source (the library's SourceRecord) these functions read. */
export interface RecordedSource {
  kind: string;
  canonical: string;
  subpath?: string;
}

const RELEASE_URL = /\/r\/([^/]+\/[^/]+)\/([^/]+)$/;

/** The canonical source of a hub SKIT: pinned to `version` when given, else following the latest release. */
export function hubCanonical(hub: string, id: string, version?: string): string {
  return version === undefined ? `${hub}/s/${id}` : `${hub}/r/${id}/${encodeURIComponent(version)}`;
}

/** The version a hub source is pinned to, else undefined (an unpinned hub source, or any other kind). */
export function hubPin(source: RecordedSource): string | undefined {
  if (source.kind !== 'hub') return undefined;
  const m = RELEASE_URL.exec(source.canonical);
  return m ? decodeURIComponent(m[2]) : undefined;
}

/**
 * The place a source's releases come from, whatever release it names: a hub SKIT (pinned or not),
 * a git repository and subpath (any ref), a local directory, the directory or URL folder that
 * holds release archives (`kit-1.0.tgz` and `kit-1.1.tgz` side by side), a SKILL.md URL. Two
 * sources with different origins are different publishers as far as Forge can tell, whatever id
 * their READMEs claim.
 */
export function sourceOrigin(source: RecordedSource): string {
  const { kind, canonical } = source;
  if (kind === 'hub') return `hub ${canonical.replace(RELEASE_URL, '/s/$1')}`;
  if (kind === 'git') {
    const hash = canonical.indexOf('#');
    return `git ${hash < 0 ? canonical : canonical.slice(0, hash)}${source.subpath ? `:${source.subpath}` : ''}`;
  }
  if (kind === 'archive') {
    const path = canonical.replace(/[?#].*$/, '');
    return `archive ${path.slice(0, path.lastIndexOf('/') + 1)}`;
  }
  // a local SKIT directory and a local skill directory at one path are one place
  return `${kind.startsWith('local') ? 'local' : kind} ${canonical}`;
}

/** How a source is named in messages: the canonical form, with what kind of place it is. */
export function describeSource(source: RecordedSource): string {
  const kind = source.kind === 'hub' ? 'Forge hub' : source.kind === 'git' ? 'git' : source.kind.startsWith('local') ? 'local directory' : source.kind;
  return `${source.canonical} (${kind})`;
}
