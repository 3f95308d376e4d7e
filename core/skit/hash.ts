import { join } from 'node:path';
import { digestFiles, type DigestOptions } from './file-digests.js';
import type { TreeDigests } from './tree-digests.js';
import { compareUtf8, digestListing, normalizeHashPath } from './hash-listing.js';
import { skillFileEntries, type FileDigest, type SkillFile } from './skill-files.js';
import type { ModeClass } from './tree.js';
import { skillId, type SkitLayout } from './types.js';

/**
 * Canonical content hashes of a SKIT (spec: schemas/hashing.md): the bundle hash over every file,
 * and one content hash per contained skill over its projection (own files + shared mappings).
 */

export { canonicalListing, digestListing, formatHash, HASH_DOMAIN, type HashEntry, type HashKind } from './hash-listing.js';
export { skillFileEntries, type FileDigest, type SkillFile } from './skill-files.js';

/** One file of the inventory (the shape of `sf skit hash --json`, schemas/json/hash-listing.schema.json). */
export interface InventoryFile {
  path: string;
  mode: ModeClass;
  /** lowercase hex sha256 of the bytes */
  sha256: string;
  size: number;
  /** SKIT-relative source of a file that a shared mapping put into a skill */
  from?: string;
}

export interface SkillHash {
  name: string;
  /** `owner/name:skill` */
  id: string;
  /** SKIT-relative skill directory ('' for a single-skill SKIT rooted at the skill) */
  path: string;
  /** `sha256:<hex>` over the skill projection */
  hash: string;
  files: InventoryFile[];
}

export interface SkitHashes {
  /** SKIT id */
  id: string;
  /** true for a provisional id (`provisional/<fingerprint>`) */
  provisional: boolean;
  /** `sha256:<hex>` over every file of the SKIT */
  bundle: string;
  skills: SkillHash[];
  files: InventoryFile[];
}

export interface HashSkitOptions extends DigestOptions {
  /** digests started early with startTreeDigests(root) (e.g. while the SKIT was being validated) */
  digests?: TreeDigests;
}

/**
 * Hashes the files of `layout` as found below `root` and derives the bundle and skill hashes.
 * Reads every file once, in parallel; throws SF_E_IO when a file cannot be read,
 * SF_E_PATH_COLLISION / SF_E_NOT_FOUND for shared mappings that cannot be materialized.
 */
export async function hashSkit(root: string, layout: SkitLayout, options: HashSkitOptions = {}): Promise<SkitHashes> {
  const digests = options.digests
    ? await options.digests.digestsFor(layout.files)
    : await digestFiles(
        layout.files.map((f) => ({ abs: join(root, ...f.path.split('/')), size: f.size })),
        options,
      );
  const byPath = new Map<string, FileDigest>(layout.files.map((f, i) => [f.path, digests[i]]));

  const files: InventoryFile[] = layout.files
    .map((f, i) => ({ path: normalizeHashPath(f.path), mode: f.mode, sha256: digests[i].sha256, size: digests[i].size }))
    .sort((a, b) => compareUtf8(a.path, b.path));
  const bundle = digestListing('bundle', files);

  const skills = layout.skills.map((skill): SkillHash => {
    const skillFiles: SkillFile[] = skillFileEntries(layout, skill, byPath);
    return {
      name: skill.name,
      id: skillId(layout.id, skill.name),
      path: skill.path,
      hash: digestListing('skill', skillFiles),
      files: skillFiles,
    };
  });
  return { id: layout.id, provisional: layout.provisional, bundle, skills, files };
}
