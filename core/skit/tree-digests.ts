import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { hasEarlyHashWorkers } from './early-hash-workers.js';
import { digestFiles, PARALLEL_MIN_BYTES, prestartHashWorkers, startDigestRun, startOpenDigestRun, type DigestOptions, type DigestRun, type OpenDigestRun } from './file-digests.js';
import { DEFAULT_LIMITS } from './limits.js';
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
  // Files are handed to the hash workers while the tree is still walked: from the first file when
  // workers are already booting (cli/sf.cts starts them for `sf skit hash`), else once the walk has
  // seen enough bytes to be worth starting them (a fresh isolate takes tens of milliseconds).
  const stream = options.threads === undefined && !options.workers;
  let open: OpenDigestRun | null = null;
  const indexOf = new Map<TreeFile, number>();
  const waiting: TreeFile[] = [];
  let seen = 0;
  const add = (f: TreeFile) => {
    const index = open!.add({ abs: f.abs, size: f.size });
    if (index >= 0) indexOf.set(f, index);
  };
  const onFile = (f: TreeFile) => {
    if (open) return add(f);
    waiting.push(f);
    seen += f.size;
    if (seen >= PARALLEL_MIN_BYTES || hasEarlyHashWorkers()) {
      open = startOpenDigestRun(DEFAULT_LIMITS.maxSkitFiles, { ...options, workers: prestartHashWorkers() });
      for (const w of waiting.splice(0)) add(w);
    }
  };
  let tree: Tree | null;
  try {
    tree = walkEarly(root, stream ? onFile : undefined);
  } catch (e) {
    (open as OpenDigestRun | null)?.cancel();
    throw e;
  }
  const early = tree?.files ?? [];
  let run: DigestRun | null = open;
  if (open) (open as OpenDigestRun).close();
  else if (early.length > 0) {
    run = startDigestRun(early, options);
    early.forEach((f, i) => indexOf.set(f, i));
  }
  let results: Promise<FileDigest[]> | null = null;

  return {
    tree,
    async digestsFor(files) {
      results ??= run ? run.finish() : Promise.resolve([]);
      const digests = await results;
      // usually `files` is the early walk itself (validated): the same objects, no lookup by path
      const byPath = files.some((f) => !indexOf.has(f)) ? new Map(early.map((f) => [f.path, f])) : null;
      const out: (FileDigest | undefined)[] = files.map((f) => {
        const walked = byPath ? byPath.get(f.path) : f;
        const k = walked ? indexOf.get(walked) : undefined;
        return k !== undefined && walked!.size === f.size && digests[k].size === f.size ? digests[k] : undefined;
      });
      const missing: { index: number; abs: string; size: number }[] = [];
      for (let i = 0; i < files.length; i++) {
        if (out[i] === undefined) missing.push({ index: i, abs: join(root, ...files[i].path.split('/')), size: files[i].size });
      }
      if (missing.length > 0) {
        const fresh = await digestFiles(missing, options);
        missing.forEach((m, k) => (out[m.index] = fresh[k]));
      }
      return out as FileDigest[];
    },
    headFor(file) {
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
