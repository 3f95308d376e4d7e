import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { unpackArchive } from '../archive/index.js';
import { SfError } from '../errors/index.js';
import { digestFiles } from '../skit/file-digests.js';
import { parseFrontmatter } from '../skit/frontmatter.js';
import { digestListing } from '../skit/hash.js';
import { parseSemver } from '../skit/semver.js';
import { walkTree } from '../skit/tree.js';
import type { HubClient } from './client.js';
import { aString, listOf, nullable, objectWith, optional } from './shape.js';

/** A release as the hub API describes it (GET /api/v1/skits/:owner/:name/releases/:version). */
export interface HubRelease {
  skitId: string;
  version: string;
  bundleHash: string;
  publishedAt: string;
  url: string;
  archive: { url: string; sha256: string; size: number };
  skills: { name: string; id: string; path: string; hash: string; defaultEnabled: boolean; description: string }[];
  files?: { path: string; mode: 'file' | 'exec'; size: number; sha256: string }[];
  deprecated: { message: string; replacement: string | null } | null;
  quarantined: { reason: string; replacement: string | null } | null;
}

const flagShape = (why: 'message' | 'reason') => optional(nullable(objectWith({ [why]: aString, replacement: optional(nullable(aString)) })));

/** The fields of a release that pulls, installs and doctor read. */
const releaseShape = objectWith({
  skitId: aString,
  version: aString,
  bundleHash: aString,
  archive: objectWith({ sha256: aString }),
  skills: listOf(objectWith({ name: aString, id: aString, path: aString, hash: aString })),
  deprecated: flagShape('message'),
  quarantined: flagShape('reason'),
});

const SKIT_ID = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?\/[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** Splits `owner/name[@version]`; undefined when it is not of that form. */
export function parseSkitRef(ref: string): { id: string; version?: string } | undefined {
  const at = ref.indexOf('@');
  const id = at === -1 ? ref : ref.slice(0, at);
  const version = at === -1 ? undefined : ref.slice(at + 1);
  if (!SKIT_ID.test(id) || version === '') return undefined;
  return { id, ...(version ? { version } : {}) };
}

/**
 * The release `version` of `id` (default: the latest installable one), checked against what was
 * asked: the hub's answer names paths and files on this machine, so a wrong SKIT, another version
 * than the exact one requested, or a version or hash that is not one is refused (SF_E_FETCH)
 * before anything is downloaded.
 */
export async function fetchRelease(client: HubClient, id: string, asked?: string): Promise<HubRelease> {
  const version = asked === 'latest' ? undefined : asked;
  const release = await client.getJson<HubRelease>(`/api/v1/skits/${id}/releases/${encodeURIComponent(version ?? 'latest')}`, releaseShape);
  const wrong = (what: string) => new SfError('SF_E_FETCH', `the hub answered ${what} for ${id}${version ? `@${version}` : ''}`, {
    hint: 'check the hub URL; a hub that answers with another release than the one asked for cannot be trusted with this one',
  });
  if (release.skitId !== id) throw wrong(`with ${JSON.stringify(release.skitId)}`);
  if (!parseSemver(release.version)) throw wrong(`a release version ${JSON.stringify(release.version)} that is not one`);
  if (version !== undefined && release.version !== version) throw wrong(`with version ${release.version}`);
  if (!/^sha256:[0-9a-f]{64}$/.test(String(release.bundleHash)) || !/^[0-9a-f]{64}$/.test(release.archive.sha256)) throw wrong('with a malformed hash');
  return release;
}

/** `sha256:<hex>` bundle hash of the tree at `dir`, computed exactly as the hub and `sf skit hash` do. */
export async function treeBundleHash(dir: string): Promise<string> {
  const { files } = await walkTree(dir);
  const digests = await digestFiles(files.map((f) => ({ abs: f.abs, size: f.size })));
  return digestListing('bundle', files.map((f, i) => ({ path: f.path, mode: f.mode, sha256: digests[i].sha256 })));
}

/**
 * Downloads the release archive from its immutable URL on the hub, checks the archive's sha256,
 * unpacks it safely into `destDir` (which must not exist), and checks that the unpacked tree
 * hashes to the release's bundle hash. Any mismatch is SF_E_HASH_MISMATCH and `destDir` is
 * left absent.
 */
export async function downloadRelease(client: HubClient, release: HubRelease, destDir: string): Promise<void> {
  const bytes = await client.download(`/r/${release.skitId}/${encodeURIComponent(release.version)}.tgz`);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== release.archive.sha256) {
    throw new SfError('SF_E_HASH_MISMATCH', `the archive of ${release.skitId}@${release.version} hashes to ${sha256}, not ${release.archive.sha256}`, {
      hint: 'the download was corrupted or altered on the way; try again, and tell the hub operator if it persists',
    });
  }
  await unpackArchive(bytes, destDir);
  const bundle = await treeBundleHash(destDir);
  if (bundle !== release.bundleHash) {
    await rm(destDir, { recursive: true, force: true });
    throw new SfError('SF_E_HASH_MISMATCH', `${release.skitId}@${release.version} unpacks to bundle ${bundle}, not ${release.bundleHash}`, {
      hint: 'the release content does not match its recorded hash; do not use it, and tell the hub operator',
    });
  }
  // the hub refuses to publish a SKIT whose README names another id; one that serves it anyway
  // would install (or update) another installation's SKIT under this name
  const declared = await declaredSkitId(destDir);
  if (declared !== undefined && declared !== release.skitId) {
    await rm(destDir, { recursive: true, force: true });
    throw new SfError('SF_E_FETCH', `the release the hub served for ${release.skitId} is the SKIT ${declared}`, {
      hint: 'do not use this hub for it, and tell the hub operator: a hub never publishes a SKIT under another id',
    });
  }
}

/** The `id` a SKIT's README.md declares, or undefined (a single-skill release has no README descriptor). */
async function declaredSkitId(dir: string): Promise<string | undefined> {
  const text = await readFile(join(dir, 'README.md'), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const data = parseFrontmatter(text).frontmatter?.data as Record<string, unknown> | undefined;
  return data && typeof data === 'object' && typeof data.id === 'string' ? data.id : undefined;
}

/** The warning for a quarantined release (only its owners and admins can fetch one). */
export function quarantineWarning(release: HubRelease): { code: string; severity: 'warning'; message: string; hint: string } | undefined {
  if (!release.quarantined) return undefined;
  return {
    code: 'HUB_RELEASE_QUARANTINED',
    severity: 'warning',
    message: `${release.skitId}@${release.version} is quarantined on the hub: ${release.quarantined.reason}`,
    hint: release.quarantined.replacement ? `use ${release.quarantined.replacement} instead` : 'only its owners can fetch it; do not give it to your agents unless you are fixing it',
  };
}
