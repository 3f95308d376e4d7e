import { lstatSync, readlinkSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { hasErrno } from '../errors/index.js';
import { readStoreManifest } from '../library/store.js';
import { changedPaths, diffTree } from '../library/tree-diff.js';
import type { InstallationRecord } from '../library/types.js';
import type { SfPaths } from '../library/paths.js';
import type { ProjectedPath } from './host-adapter.js';
import type { ObservedPath, Observations } from './plan-types.js';

/**
 * The impure half of planning: looks at the filesystem paths a plan may touch, so the planners
 * can stay pure.
 */

const inside = (path: string, root: string) => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** Synchronous: a few lstat calls cost less than their thread-pool round trips. */
function observe(path: string, storeRoot: string): ObservedPath {
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) {
      const target = readlinkSync(path);
      return { kind: 'symlink', intoStore: inside(isAbsolute(target) ? target : resolve(dirname(path), target), storeRoot) };
    }
    return { kind: st.isDirectory() ? 'dir' : 'other' };
  } catch (e) {
    // ENOTDIR: a parent is a file, so nothing is at the path (creating it will fail in the step)
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR')) return { kind: 'absent' };
    throw e;
  }
}

/**
 * Whether a path Forge recorded as `mode` now holds something Forge did not put there: a link out
 * of the store (whether or not its target exists), or a directory or file where Forge made a link.
 * Forge's own copy stays Forge's, edited or not; a missing entry is only missing.
 */
function isReplaced(seen: ObservedPath, mode: ProjectedPath['mode']): boolean {
  if (seen.kind === 'symlink') return !seen.intoStore;
  return seen.kind === 'other' || (seen.kind === 'dir' && mode !== 'copy');
}

/** The recorded paths that the user's own entries replaced, as they are now (see isReplaced). */
export function replacedPaths(paths: readonly ProjectedPath[], storeRoot: string): ProjectedPath[] {
  return paths.filter((p) => isReplaced(observe(p.path, storeRoot), p.mode));
}

/**
 * Observes `candidates` (paths a plan may create) and every path `changing` records; for the
 * latter also marks the ones the user replaced and lists files that differ from the release the
 * library recorded (local edits).
 */
export async function survey(paths: SfPaths, candidates: Iterable<string>, changing: InstallationRecord | null): Promise<Observations> {
  const out: Observations = { paths: {} };
  for (const path of new Set(candidates)) out.paths[path] = observe(path, paths.store);
  if (!changing) return out;
  const manifest = await readStoreManifest(paths, changing.bundleHash);
  if (!manifest) out.storeEntryMissing = true;
  for (const target of changing.targets) {
    for (const p of target.paths) {
      const seen = out.paths[p.path] ?? observe(p.path, paths.store);
      out.paths[p.path] = seen;
      // the user's own entry: its files are not Forge's edits (it is not diffed against the release)
      if (isReplaced(seen, p.mode)) {
        seen.replaced = p.mode;
        continue;
      }
      const skill = changing.skills.find((s) => s.id === p.skillId);
      const expected = manifest?.skills.find((s) => s.name === skill?.name)?.files;
      if (!expected || seen.kind === 'absent') continue;
      const changed = changedPaths(await diffTree(p.path, expected));
      if (changed.length > 0) seen.localChanges = changed;
    }
  }
  return out;
}
