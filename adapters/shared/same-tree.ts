import { digestFiles } from '../../core/skit/file-digests.js';
import { walkTree } from '../../core/skit/tree.js';
import { diffTree, type TreeDiff } from '../../core/library/tree-diff.js';
import { hasErrno } from '../../core/errors/index.js';

/**
 * Compares a projected copy with the store directory it was copied from (content and mode class
 * of every file). Used for drift checks and to keep re-projection idempotent.
 */
export async function diffAgainstSource(dest: string, sourceDir: string): Promise<TreeDiff> {
  let source;
  try {
    source = await walkTree(sourceDir, { ignore: () => false });
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return { absent: false, missing: [], modified: [], extra: [] };
    throw e;
  }
  const digests = await digestFiles(source.files.map((f) => ({ abs: f.abs, size: f.size })));
  return diffTree(
    dest,
    source.files.map((f, i) => ({ path: f.path, mode: f.mode, sha256: digests[i].sha256 })),
  );
}

/** True when `dest` holds exactly the files of `sourceDir`. */
export async function sameTree(dest: string, sourceDir: string): Promise<boolean> {
  const d = await diffAgainstSource(dest, sourceDir);
  return !d.absent && d.missing.length + d.modified.length + d.extra.length === 0;
}
