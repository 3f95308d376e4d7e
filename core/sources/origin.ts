import { caretOf } from './caret.js';

/**
 * Where a recorded source comes from, apart from which release of it: pure string work on the
 * recorded source, so planners and list output can use it without loading any resolver.
 *
 * A hub install's canonical source is the SKIT URL `<hub>/s/owner/name`, whichever release it
 * holds; the caret range `sf skit update` follows is the source's own `range` field (see
 * caret.ts): `^<version>` of the version `sf add skit` or `sf skit update --version` installed.
 */

/** The fields of a recorded source (the library's SourceRecord) these functions read. */
export interface RecordedSource {
  kind: string;
  canonical: string;
  subpath?: string;
  range?: string;
}

/** The canonical source of a hub SKIT, whichever release is installed. */
export function hubCanonical(hub: string, id: string): string {
  return `${hub}/s/${id}`;
}

/**
 * The source text that installs the release an installation holds, for hints that send the user
 * to `sf add skit` again (another agent, another scope): a hub SKIT's release URL
 * `<hub>/r/owner/name/<version>` (its canonical `<hub>/s/owner/name` means the latest release, and
 * `owner/name@<version>` the default hub, which may be another one); any other source's canonical
 * form, which names its ref.
 */
export function sourceOfRelease(source: RecordedSource, release: { version?: string }): string {
  if (source.kind !== 'hub' || !release.version) return source.canonical;
  return `${source.canonical.replace(/\/s\/([^/]+\/[^/]+)$/, '/r/$1')}/${encodeURIComponent(release.version)}`;
}

/**
 * The caret range a hub installation follows: the recorded one, or `^<installed version>` for a
 * record written before ranges were recorded; undefined for any other kind of source.
 */
export function hubRange(source: RecordedSource, release: { version?: string }): string | undefined {
  if (source.kind !== 'hub') return undefined;
  return source.range ?? (release.version ? caretOf(release.version) : undefined);
}

/**
 * The place a source's releases come from, whatever release it names: a hub SKIT (any release),
 * a git repository and subpath (any ref), a local directory, the directory or URL folder that
 * holds release archives (`kit-1.0.tgz` and `kit-1.1.tgz` side by side), a SKILL.md URL. Two
 * sources with different origins are different publishers as far as Forge can tell, whatever id
 * their READMEs claim.
 */
export function sourceOrigin(source: RecordedSource): string {
  const { kind, canonical } = source;
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
