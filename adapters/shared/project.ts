import { lstat, mkdir, readdir, readlink, rename, rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { hasErrno } from '../../core/errors/index.js';
import { crashPoint } from '../../core/fs/crash-point.js';
import { fsyncDir } from '../../core/fs/atomic.js';
import { copyTreeDurable } from './copy-tree.js';
import { defaultLinkOps, stagingDirFor, stagingNameFor, type LinkOps, type ProjectionMode } from './fs-ops.js';
import { sameTree } from './same-tree.js';

/** Errors that mean "this filesystem or platform cannot make the link": fall back to a copy. */
const LINK_UNSUPPORTED = ['EPERM', 'EACCES', 'ENOTSUP', 'EOPNOTSUPP', 'EINVAL', 'ENOSYS', 'EXDEV', 'EROFS'];

export interface ProjectSkillOptions {
  mode: ProjectionMode;
  link?: LinkOps;
}

/** What is at a path, without following it. */
export type PathState = { kind: 'absent' } | { kind: 'symlink'; target: string } | { kind: 'dir' } | { kind: 'other' };

export async function pathState(path: string): Promise<PathState> {
  try {
    const st = await lstat(path);
    if (st.isSymbolicLink()) return { kind: 'symlink', target: await readlink(path) };
    return st.isDirectory() ? { kind: 'dir' } : { kind: 'other' };
  } catch (e) {
    // ENOTDIR: a parent is a file, so nothing can be at the path
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR')) return { kind: 'absent' };
    throw e;
  }
}

/**
 * Makes `dest` (a skill directory inside a host skill root) show exactly `sourceDir` (a store
 * projection): a directory link into the store, or a copy where links fail or `mode` is copy.
 * Atomic per skill directory: the new entry is built under a staging name outside the skill root
 * and renamed into place; an existing entry is moved aside first and deleted after. Idempotent:
 * an entry that already shows `sourceDir` in the wanted mode is left alone. The caller has checked
 * that whatever is at `dest` belongs to Forge.
 */
export async function projectSkillDir(sourceDir: string, dest: string, options: ProjectSkillOptions): Promise<'symlink' | 'copy'> {
  const current = await pathState(dest);
  if (current.kind === 'symlink' && current.target === sourceDir && options.mode !== 'copy') return 'symlink';
  if (current.kind === 'dir' && options.mode !== 'symlink' && (await sameTree(dest, sourceDir))) return 'copy';

  const skillRoot = dirname(dest);
  await mkdir(skillRoot, { recursive: true });
  await mkdir(stagingDirFor(skillRoot), { recursive: true });
  const tmp = stagingNameFor(dest, 'new');
  let made: 'symlink' | 'copy' = 'copy';
  try {
    if (options.mode !== 'copy') {
      try {
        await (options.link ?? defaultLinkOps).symlink(sourceDir, tmp);
        made = 'symlink';
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? '';
        if (options.mode === 'symlink' || !LINK_UNSUPPORTED.includes(code)) throw e;
      }
    }
    if (made === 'copy') await copyTreeDurable(sourceDir, tmp);
    await replaceEntry(tmp, dest, current);
  } finally {
    await rm(tmp, { recursive: true, force: true });
    await removeIfEmpty(stagingDirFor(skillRoot));
  }
  crashPoint('project:after-skill');
  return made;
}

/** Renames `tmp` to `dest`, moving an existing `dest` aside first when a plain rename cannot replace it. */
async function replaceEntry(tmp: string, dest: string, current: PathState): Promise<void> {
  const tmpIsLink = (await pathState(tmp)).kind === 'symlink';
  if (current.kind === 'absent' || (current.kind === 'symlink' && tmpIsLink)) {
    await rename(tmp, dest);
  } else {
    const trash = stagingNameFor(dest, 'old');
    await rename(dest, trash);
    await rename(tmp, dest);
    await rm(trash, { recursive: true, force: true });
  }
  await fsyncDir(dirname(dest));
}

/**
 * Deletes staging entries next to `skillRoot` that interrupted projections left behind (their
 * process is gone); entries of a live process are kept.
 */
export async function cleanStaleStaging(skillRoot: string): Promise<void> {
  const staging = stagingDirFor(skillRoot);
  let names: string[];
  try {
    names = await readdir(staging);
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR')) return;
    throw e;
  }
  for (const name of names) {
    const parts = name.split('.');
    const pid = Number(parts[parts.length - 2]);
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) continue;
    await rm(join(staging, name), { recursive: true, force: true });
  }
  await removeIfEmpty(staging);
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return hasErrno(e, 'EPERM');
  }
}

/** Removes a directory when it is empty; anything else is left as it is. */
export async function removeIfEmpty(dir: string): Promise<void> {
  try {
    await rmdir(dir);
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTEMPTY') || hasErrno(e, 'EEXIST')) return;
    throw e;
  }
}
