import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SfError } from '../errors/index.js';
import { HubClient } from '../hub-client/client.js';
import type { HubTarget } from '../hub-client/credentials.js';
import { downloadRelease, fetchRelease, parseSkitRef, quarantineWarning, type HubRelease } from '../hub-client/release.js';
import { aString, listOf, nullable, objectWith, optional } from '../hub-client/shape.js';
import { compareSemver, latestVersion, parseSemver } from '../skit/semver.js';
import { askedCaret, caretBase, caretOf, describeCaret, newestInCaret, satisfiesCaret } from './caret.js';
import { identity } from './identity.js';
import { hubCanonical } from './origin.js';
import { SCRATCH_MODE, type ResolvedSource, type ResolveOptions, type SourceResolver } from './types.js';

/**
 * The Forge hub registry as a source resolver (a plug-in: pass it in `ResolveOptions.resolvers`).
 *
 * Forms:
 * - `owner/name` and `owner/name@<version>` on the default hub;
 * - hub URLs of a known hub: the release URL `<hub>/r/owner/name/<version>` (also `.tgz`) and
 *   the SKIT URL `<hub>/s/owner/name` (latest release).
 *
 * `options.version` overrides the version of the source text (`latest`: the latest release).
 * Without either, `options.range` (`sf skit update`) takes the newest installable release inside
 * that caret range, from the hub's list of releases, else the latest release is taken. The
 * release archive is downloaded from its immutable URL, its sha256 and bundle hash are checked
 * against the hub's record, and it is unpacked into `options.workDir`. The canonical source (no
 * credentials) is the SKIT URL `<hub>/s/owner/name`; the result's `range` is what the install
 * records for later updates: `options.range` when it chose the release, else `^<version>` of the
 * release installed, as npm records `^1.2.3` (see caret.ts).
 */

export interface HubResolverOptions {
  /** hubs this resolver may talk to; the first one is the default for `owner/name` */
  hubs: HubTarget[];
  fetch?: typeof fetch;
}

/**
 * The result carries the hub version, which the installer records as the release version, the
 * caret range to record, and, when `options.range` chose the release, `newer`: the newest
 * installable release when it lies beyond the range (a new major version).
 */
export type HubResolvedSource = ResolvedSource & { version: string; hub: string; range: string; newer?: string };

interface HubRef {
  hub: HubTarget;
  id: string;
  version?: string;
}

const RELEASE_PATH = /^\/r\/([^/]+\/[^/]+)\/([^/]+?)(?:\.tgz)?\/?$/;
const SKIT_PATH = /^\/s\/([^/]+\/[^/]+)\/?$/;

function parse(input: string, hubs: readonly HubTarget[]): HubRef | undefined {
  if (!/^https?:\/\//i.test(input)) {
    const ref = parseSkitRef(input);
    return ref && hubs[0] ? { hub: hubs[0], ...ref } : undefined;
  }
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return undefined;
  }
  for (const hub of hubs) {
    const base = new URL(hub.url);
    if (url.origin !== base.origin) continue;
    const prefix = base.pathname.replace(/\/+$/, '');
    if (!url.pathname.startsWith(`${prefix}/`)) continue;
    const path = url.pathname.slice(prefix.length);
    const release = RELEASE_PATH.exec(path);
    if (release && parseSkitRef(release[1])) return { hub, id: release[1], version: decodeURIComponent(release[2]) };
    const skit = SKIT_PATH.exec(path);
    if (skit && parseSkitRef(skit[1])) return { hub, id: skit[1] };
  }
  return undefined;
}

export function hubResolver(options: HubResolverOptions): SourceResolver {
  return {
    name: 'hub',
    forms: ['owner/name[@version] (Forge hub)', '<hub>/r/owner/name/<version>', '<hub>/s/owner/name'],
    matches: (input) => parse(input, options.hubs) !== undefined,
    async resolve(input: string, ro: ResolveOptions): Promise<HubResolvedSource> {
      const ref = parse(input, options.hubs);
      if (!ref) throw new SfError('SF_E_SOURCE', `"${input}" is not a hub source`, { hint: 'use owner/name[@version]' });
      const client = new HubClient(ref.hub, { fetch: options.fetch ?? ro.fetch });
      const asked = ro.version ?? ref.version;
      const askedRange = asked === undefined ? undefined : askedCaret(asked);
      const { release, range, newer } = askedRange !== undefined || (asked === undefined && ro.range !== undefined)
        ? await releaseInRange(client, ref.id, askedRange ?? ro.range!, askedRange !== undefined)
        : // checked by fetchRelease: the id, the exact version asked for, a version that is a path-safe semver
          await fetchRelease(client, ref.id, asked).then((r) => ({ release: r, range: caretOf(r.version), newer: undefined }));
      await mkdir(ro.workDir, { recursive: true, mode: SCRATCH_MODE });
      const dir = join(ro.workDir, `hub-${release.skitId.replace('/', '-')}-${release.version}`);
      await downloadRelease(client, release, dir);
      const canonical = hubCanonical(ref.hub.url, release.skitId);
      const ids = identity(canonical);
      // a single-skill release has no README descriptor: its id comes from the hub, not from a fingerprint
      const single = release.skills.length === 1 && release.skills[0].path === '';
      return {
        kind: 'hub',
        canonical,
        fingerprint: ids.fingerprint,
        provisionalId: single ? release.skitId : ids.provisionalId,
        ref: release.version,
        version: release.version,
        hub: ref.hub.url,
        range,
        ...(newer !== undefined ? { newer } : {}),
        dir,
        diagnostics: [
          ...(release.deprecated
            ? [{
                code: 'HUB_RELEASE_DEPRECATED',
                severity: 'warning' as const,
                message: `${release.skitId}@${release.version} is deprecated: ${release.deprecated.message}`,
                ...(release.deprecated.replacement ? { hint: `use ${release.deprecated.replacement} instead` } : {}),
              }]
            : []),
          ...[quarantineWarning(release)].filter((d) => d !== undefined),
        ],
      };
    },
  };
}

const releasesShape = objectWith({
  releases: listOf(objectWith({ version: aString, quarantined: optional(nullable(objectWith({}))) })),
});

/**
 * The newest installable (not quarantined) release of `id` inside the caret `range` (recorded,
 * or `asked` for as the version), from the hub's list of releases, and the newest installable
 * release when it is beyond the range. None inside the range is SF_E_NOT_FOUND, whose hint names
 * the release `--version` can move to.
 */
async function releaseInRange(client: HubClient, id: string, range: string, asked: boolean): Promise<{ release: HubRelease; range: string; newer?: string }> {
  if (!caretBase(range)) {
    throw new SfError('SF_E_USAGE', `the recorded range of ${id}, ${JSON.stringify(range)}, is not a caret range (^x.y.z)`, { hint: `choose a release: sf skit update ${id} --version <version> (or --version latest)` });
  }
  const listed = await client.getJson<{ releases: { version: string; quarantined?: unknown }[] }>(`/api/v1/skits/${id}/releases`, releasesShape);
  const installable = listed.releases.filter((r) => !r.quarantined && parseSemver(r.version)).map((r) => r.version);
  const chosen = newestInCaret(installable, range);
  const newest = latestVersion(installable);
  const beyond = newest !== undefined && !satisfiesCaret(newest, range) && (chosen === undefined || compareSemver(newest, chosen) > 0) ? newest : undefined;
  if (chosen === undefined) {
    throw new SfError('SF_E_NOT_FOUND', `${id} has no installable release within ${range} (${describeCaret(range)}) on ${client.target.url}`, {
      hint: beyond
        ? `its newest release is ${beyond}: ${asked ? `ask for ${id}@${beyond} (or latest)` : `sf skit update ${id} --version ${beyond} (or --version latest)`}`
        : `its releases in that range may have been quarantined or withdrawn; see \`sf skit doctor\``,
    });
  }
  return { release: await fetchRelease(client, id, chosen), range, ...(beyond !== undefined ? { newer: beyond } : {}) };
}
