import { join } from 'node:path';
import { startDigestRun, type DigestOptions } from './file-digests.js';
import type { TreeDigests } from './tree-digests.js';
import { digestPreparedListing, prepareListing, type PreparedListing } from './hash-listing.js';
import { skillFileSources, withDigest, type FileDigest, type SkillFile, type SkillFileSource } from './skill-files.js';
import type { ModeClass } from './tree.js';
import { skillId, type SkillEntry, type SkitLayout } from './types.js';

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
  // Start reading first, then plan the listings (they need paths only) while the files are read;
  // a planning error is raised after the reads, so an unreadable file is reported first, as it
  // always was.
  const run = options.digests
    ? null
    : startDigestRun(
        layout.files.map((f) => ({ abs: join(root, ...f.path.split('/')), size: f.size })),
        options,
      );
  let plan: HashPlan | undefined;
  let planError: unknown;
  try {
    plan = planHashes(layout);
  } catch (e) {
    planError = e;
  }
  const digests = options.digests ? await options.digests.digestsFor(layout.files) : await run!.finish();
  if (!plan) throw planError;
  return completeHashes(layout, plan, digests);
}

/** Everything about the hashes that depends on paths alone. */
interface HashPlan {
  /** the bundle listing over indices into layout.files */
  bundle: PreparedListing<number>;
  skills: { skill: SkillEntry; listing: PreparedListing<SkillFileSource> }[];
}

function planHashes(layout: SkitLayout): HashPlan {
  const normalized = new Map<string, string>();
  const bundle = prepareListing(layout.files.map((f, i) => ({ path: f.path, index: i })), normalized);
  return {
    bundle: { paths: bundle.paths, entries: bundle.entries.map((e) => e.index) },
    // a projection is already normalized and sorted, so preparing it only checks its paths again
    skills: layout.skills.map((skill) => ({ skill, listing: prepareListing(skillFileSources(layout, skill), normalized) })),
  };
}

function completeHashes(layout: SkitLayout, plan: HashPlan, digests: readonly FileDigest[]): SkitHashes {
  const files: InventoryFile[] = plan.bundle.entries.map((index, i) => ({
    path: plan.bundle.paths[i],
    mode: layout.files[index].mode,
    sha256: digests[index].sha256,
    size: digests[index].size,
  }));
  const bundle = digestPreparedListing('bundle', plan.bundle.paths, files);
  const skills = plan.skills.map(({ skill, listing }): SkillHash => {
    const skillFiles: SkillFile[] = listing.entries.map((source) => withDigest(source, digests[source.index]));
    return {
      name: skill.name,
      id: skillId(layout.id, skill.name),
      path: skill.path,
      hash: digestPreparedListing('skill', listing.paths, skillFiles),
      files: skillFiles,
    };
  });
  return { id: layout.id, provisional: layout.provisional, bundle, skills, files };
}
