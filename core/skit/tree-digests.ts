import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { digestFiles, PARALLEL_MIN_BYTES, prestartHashWorkers, startDigestRun, type DigestOptions, type DigestRun, type HashWorkers } from './file-digests.js';
import type { FileDigest } from './skill-files.js';
import type { Tree, TreeFile } from './tree.js';
import { walkTreeSync } from './tree-sync.js';

/**
 * Early hashing of a whole directory: walk it now and let workers start reading while the caller
 * validates it, then hand out digests for the files the validated layout lists. A file the early
 * walk did not see, or saw with another size, is hashed again on demand, so the result never
 * depends on the early walk being current.
 */
export interface TreeDigests {
  /**
   * The early walk (null when the directory was not pre-hashed): a caller that validates the same
   * directory right away can pass it on (ValidateOptions.tree) instead of walking again.
   */
  readonly tree: Tree | null;
  /** Digests for `files` (SKIT-relative paths below the root given to startTreeDigests), index-aligned. */
  digestsFor(files: readonly TreeFile[]): Promise<FileDigest[]>;
  /** Stops the early work, e.g. when validation failed and nothing will be hashed. */
  cancel(): void;
  /**
   * The first bytes of `file` (one of `tree`'s files) as the hashing reads them, for validation
   * (ValidateOptions.readHead); undefined for a file the early walk did not list or could not read.
   */
  headFor(file: TreeFile): Uint8Array | undefined;
}

/** Starts hashing every file below `root` in the background (see TreeDigests). */
export function startTreeDigests(root: string, options: DigestOptions = {}): TreeDigests {
  // Once the walk has seen enough bytes to hash in parallel, the workers start (a fresh isolate
  // takes tens of milliseconds) while the rest of the tree is walked.
  let workers: HashWorkers | undefined;
  let seen = 0;
  const prestart = (f: TreeFile) => {
    seen += f.size;
    if (!workers && seen >= PARALLEL_MIN_BYTES) workers = prestartHashWorkers();
  };
  let tree: Tree | null;
  try {
    tree = walkEarly(root, options.threads === undefined && !options.workers ? prestart : undefined);
  } catch (e) {
    workers?.dispose();
    throw e;
  }
  const early = tree?.files ?? [];
  const runOptions = workers ? { ...options, workers } : options;
  if (early.length === 0) workers?.dispose();
  const run: DigestRun | null = early.length > 0 ? startDigestRun(early, runOptions) : null;
  let results: Promise<FileDigest[]> | null = null;
  let indexOf: Map<TreeFile, number> | undefined;

  return {
    tree,
    async digestsFor(files) {
      results ??= run ? run.finish() : Promise.resolve([]);
      const digests = await results;
      // usually `files` is the early walk itself (validated), in the same order: no lookup needed
      const aligned = files.length === early.length && files.every((f, i) => f.path === early[i].path);
      const known = aligned ? null : new Map(early.map((f, i) => [f.path, i]));
      const out: (FileDigest | undefined)[] = files.map((f, i) => {
        const k = aligned ? i : known!.get(f.path);
        return k !== undefined && early[k].size === f.size && digests[k].size === f.size ? digests[k] : undefined;
      });
      const missing = files.flatMap((f, i) => (out[i] === undefined ? [{ index: i, abs: join(root, ...f.path.split('/')), size: f.size }] : []));
      if (missing.length > 0) {
        const fresh = await digestFiles(missing, options);
        missing.forEach((m, k) => (out[m.index] = fresh[k]));
      }
      return out as FileDigest[];
    },
    headFor(file) {
      indexOf ??= new Map(early.map((f, i) => [f, i]));
      const index = indexOf.get(file);
      return index === undefined || !run ? undefined : run.head(index);
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
function walkEarly(root: string, onFile?: (f: TreeFile) => void): Tree | null {
  if (!existsSync(join(root, 'README.md')) && !existsSync(join(root, 'SKILL.md'))) return null;
  try {
    return walkTreeSync(root, { onFile });
  } catch (e) {
    if (e instanceof Error && 'code' in e) return null;
    throw e;
  }
}
