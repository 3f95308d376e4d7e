import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { digestFiles, startDigestRun, type DigestOptions, type DigestRun } from './file-digests.js';
import type { FileDigest } from './skill-files.js';
import type { TreeFile } from './tree.js';
import { walkTreeSync } from './tree-sync.js';

/**
 * Early hashing of a whole directory: walk it now and let workers start reading while the caller
 * validates it, then hand out digests for the files the validated layout lists. A file the early
 * walk did not see, or saw with another size, is hashed again on demand, so the result never
 * depends on the early walk being current.
 */
export interface TreeDigests {
  /** Digests for `files` (SKIT-relative paths below the root given to startTreeDigests), index-aligned. */
  digestsFor(files: readonly TreeFile[]): Promise<FileDigest[]>;
  /** Stops the early work, e.g. when validation failed and nothing will be hashed. */
  cancel(): void;
}

/** Starts hashing every file below `root` in the background (see TreeDigests). */
export function startTreeDigests(root: string, options: DigestOptions = {}): TreeDigests {
  const early = walkEarly(root);
  const run: DigestRun | null = early.length > 0 ? startDigestRun(early, options) : null;
  let results: Promise<FileDigest[]> | null = null;

  return {
    async digestsFor(files) {
      results ??= run ? run.finish() : Promise.resolve([]);
      const known = new Map<string, { size: number; digest: FileDigest }>();
      (await results).forEach((digest, i) => known.set(early[i].path, { size: early[i].size, digest }));

      const out: (FileDigest | undefined)[] = files.map((f) => {
        const hit = known.get(f.path);
        return hit && hit.size === f.size && hit.digest.size === f.size ? hit.digest : undefined;
      });
      const missing = files.flatMap((f, i) => (out[i] === undefined ? [{ index: i, abs: join(root, ...f.path.split('/')), size: f.size }] : []));
      if (missing.length > 0) {
        const fresh = await digestFiles(missing, options);
        missing.forEach((m, k) => (out[m.index] = fresh[k]));
      }
      return out as FileDigest[];
    },
    cancel() {
      run?.cancel();
    },
  };
}

/**
 * The early walk. Only a directory that looks like a SKIT (README.md or SKILL.md at its root) is
 * pre-hashed, so pointing the command at a large unrelated tree does not read it all; a tree that
 * cannot be walked is simply not pre-hashed (validation reports why).
 */
function walkEarly(root: string): TreeFile[] {
  if (!existsSync(join(root, 'README.md')) && !existsSync(join(root, 'SKILL.md'))) return [];
  try {
    return walkTreeSync(root).files;
  } catch (e) {
    if (e instanceof Error && 'code' in e) return [];
    throw e;
  }
}
