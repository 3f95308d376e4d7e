import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SfError } from '../errors/index.js';
import { HubClient } from '../hub-client/client.js';
import type { HubTarget } from '../hub-client/credentials.js';
import { downloadRelease, fetchRelease, parseSkitRef, quarantineWarning } from '../hub-client/release.js';
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
 * `options.version` overrides the version of the source text (`latest`: the latest release). The
 * release archive is downloaded from its immutable URL, its sha256 and bundle hash are checked
 * against the hub's record, and it is unpacked into `options.workDir`. The canonical source (no
 * credentials) pins a version that was asked for: the release URL `<hub>/r/owner/name/<version>`,
 * which `sf skit update` resolves to that release again, as a git source keeps its ref. Without a
 * version it is the SKIT URL `<hub>/s/owner/name`, which update resolves to the newest release
 * (see origin.ts).
 */

export interface HubResolverOptions {
  /** hubs this resolver may talk to; the first one is the default for `owner/name` */
  hubs: HubTarget[];
  fetch?: typeof fetch;
}

/** The result carries the hub version, which the installer records as the release version. */
export type HubResolvedSource = ResolvedSource & { version: string; hub: string };

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
      // checked by fetchRelease: the id, the exact version asked for, a version that is a path-safe semver
      const release = await fetchRelease(client, ref.id, asked);
      await mkdir(ro.workDir, { recursive: true, mode: SCRATCH_MODE });
      const dir = join(ro.workDir, `hub-${release.skitId.replace('/', '-')}-${release.version}`);
      await downloadRelease(client, release, dir);
      const pinned = asked !== undefined && asked !== 'latest';
      const canonical = hubCanonical(ref.hub.url, release.skitId, pinned ? release.version : undefined);
      // one identity for the SKIT, pinned or not
      const ids = identity(hubCanonical(ref.hub.url, release.skitId));
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
