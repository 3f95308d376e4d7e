import { digestFiles } from '../skit/file-digests.js';
import { walkTree, type ModeClass } from '../skit/tree.js';
import { hasErrno } from '../errors/index.js';

/** A file as recorded in a store manifest: what a directory should hold. */
export interface ExpectedFile {
  path: string;
  mode: ModeClass;
  sha256: string;
}

/** How a directory differs from what was recorded. Paths are relative to the directory. */
export interface TreeDiff {
  /** the directory itself is missing */
  absent: boolean;
  missing: string[];
  modified: string[];
  /** files (or links and special files) that were not recorded */
  extra: string[];
}

export const isCleanDiff = (d: TreeDiff): boolean => !d.absent && d.missing.length + d.modified.length + d.extra.length === 0;

/** Every path a diff names, sorted: what to tell a user whose edits would be lost. */
export const changedPaths = (d: TreeDiff): string[] => [...d.modified, ...d.missing, ...d.extra].sort();

/**
 * Compares the files below `dir` with `expected` by content (sha256) and mode class. Nothing is
 * followed: a symlink inside the directory counts as an extra entry.
 */
export async function diffTree(dir: string, expected: readonly ExpectedFile[]): Promise<TreeDiff> {
  let tree;
  try {
    tree = await walkTree(dir, { ignore: () => false });
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR')) return { absent: true, missing: expected.map((f) => f.path), modified: [], extra: [] };
    throw e;
  }
  const want = new Map(expected.map((f) => [f.path.normalize('NFC'), f]));
  const digests = await digestFiles(tree.files.map((f) => ({ abs: f.abs, size: f.size })));
  const missing: string[] = [];
  const modified: string[] = [];
  const extra: string[] = tree.oddities.map((o) => o.path);
  const seen = new Set<string>();
  tree.files.forEach((f, i) => {
    const key = f.path.normalize('NFC');
    const exp = want.get(key);
    if (!exp) return void extra.push(f.path);
    seen.add(key);
    if (exp.sha256 !== digests[i].sha256 || exp.mode !== f.mode) modified.push(f.path);
  });
  for (const [key, f] of want) if (!seen.has(key)) missing.push(f.path);
  return { absent: false, missing: missing.sort(), modified: modified.sort(), extra: extra.sort() };
}
