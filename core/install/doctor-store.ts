import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Diagnostic } from '../errors/index.js';
import { bundleHex, type SfPaths } from '../library/paths.js';
import { ensureStored, readStoreManifest, storeEntryDir, storeReleaseDir, storeSkillDir, type StoreManifest } from '../library/store.js';
import { isStoreCache } from '../library/store-compare.js';
import { changedPaths, diffTree } from '../library/tree-diff.js';
import type { InstallationRecord } from '../library/types.js';
import type { SkitHashes } from '../skit/hash.js';
import { digestListing } from '../skit/hash.js';

/** Store checks of `sf skit doctor`: every installed bundle is present, complete and unmodified. */

export interface StoreCheck {
  diagnostics: Diagnostic[];
  manifest: StoreManifest | null;
  /** the complete release tree is intact, so the entry can be rebuilt from it */
  releaseIntact: boolean;
}

export async function checkStoreEntry(paths: SfPaths, inst: InstallationRecord): Promise<StoreCheck> {
  const entry = storeEntryDir(paths, inst.bundleHash);
  const manifest = await readStoreManifest(paths, inst.bundleHash);
  if (!manifest) {
    return {
      manifest,
      releaseIntact: false,
      diagnostics: [
        { code: 'SF_DRIFT_STORE_MISSING', severity: 'error', file: entry, message: `the release of ${inst.skitId} (${inst.bundleHash}) is missing from the store`, hint: `run \`sf skit doctor --fix\` (it fetches the source again) or \`sf skit update ${inst.skitId}\`` },
      ],
    };
  }
  const diagnostics: Diagnostic[] = [];
  const release = await diffTree(storeReleaseDir(paths, inst.bundleHash), manifest.files);
  // caches tools write through a link are not a change (as for an install's reuse: isStoreCache)
  const changes = (d: Parameters<typeof changedPaths>[0]) => changedPaths(d).filter((p) => !isStoreCache(p));
  const releaseChanged = changes(release);
  const releaseIntact = releaseChanged.length === 0 && !release.absent && digestListing('bundle', manifest.files) === inst.bundleHash;
  if (!releaseIntact) {
    diagnostics.push({ code: 'SF_DRIFT_STORE_CORRUPT', severity: 'error', file: storeReleaseDir(paths, inst.bundleHash), message: `the stored release of ${inst.skitId} was modified: ${releaseChanged.join(', ') || 'manifest does not match'}`, hint: 'run `sf skit doctor --fix --force` to restore the stored release (without --force, doctor leaves it)' });
  }
  for (const skill of inst.skills) {
    const files = manifest.skills.find((s) => s.name === skill.name)?.files ?? [];
    const diff = await diffTree(storeSkillDir(paths, inst.bundleHash, skill.name), files);
    const changed = changes(diff);
    const hashOk = files.length > 0 && digestListing('skill', files) === skill.hash;
    if (changed.length > 0 || !hashOk) {
      diagnostics.push({
        code: 'SF_DRIFT_STORE_CORRUPT',
        severity: 'error',
        file: storeSkillDir(paths, inst.bundleHash, skill.name),
        message: `the stored projection of ${skill.id} was modified (often by editing through a linked skill directory): ${changed.join(', ') || 'manifest does not match'}`,
        hint: 'copy any edits you want to keep, then run `sf skit doctor --fix --force` to restore the release',
      });
    }
  }
  return { diagnostics, manifest, releaseIntact };
}

/** SkitHashes of an installation, rebuilt from its record and store manifest. */
export function hashesFromManifest(inst: InstallationRecord, manifest: StoreManifest): SkitHashes {
  return {
    id: manifest.skitId,
    provisional: inst.provisional,
    bundle: manifest.bundleHash,
    files: manifest.files,
    skills: manifest.skills.map((s) => ({
      name: s.name,
      id: inst.skills.find((k) => k.name === s.name)?.id ?? `${inst.skitId}:${s.name}`,
      path: inst.skills.find((k) => k.name === s.name)?.path ?? '',
      hash: s.hash,
      files: s.files,
    })),
  };
}

/**
 * Rebuilds a store entry from its own intact release tree: the old entry is moved aside
 * atomically, a fresh entry is built from its release/ (bytes verified against the manifest), and
 * the old one deleted.
 */
export async function rebuildStoreEntry(paths: SfPaths, inst: InstallationRecord, manifest: StoreManifest): Promise<void> {
  const aside = join(paths.storeStaging, `rebuild-${bundleHex(inst.bundleHash)}.${randomBytes(4).toString('hex')}`);
  await mkdir(paths.storeStaging, { recursive: true });
  await rename(storeEntryDir(paths, inst.bundleHash), aside);
  try {
    await ensureStored(paths, join(aside, 'release'), hashesFromManifest(inst, manifest));
  } finally {
    await rm(aside, { recursive: true, force: true });
  }
}
