import { lstatSync, mkdirSync, readlinkSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { hasErrno } from '../../core/errors/index.js';
import { crashPoint } from '../../core/fs/crash-point.js';
import { fsyncDirsSync, mkdirForDurable } from '../../core/fs/atomic.js';
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
  return pathStateSync(path);
}

/**
 * pathState, synchronously. Projection is a dozen metadata calls per skill, each a few
 * microseconds in the kernel; through the thread pool each cost a round trip (~2 ms per skill).
 */
function pathStateSync(path: string): PathState {
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return { kind: 'symlink', target: readlinkSync(path) };
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
  return (await projectSkillDirs([{ sourceDir, dest }], options))[0];
}

/**
 * projectSkillDir for several skill directories, one after the other, with one fsync per skill
 * root at the end instead of one per skill (a directory fsync cost 1-3 ms here): when it returns,
 * every rename is durable, as with projectSkillDir.
 */
export async function projectSkillDirs(skills: readonly { sourceDir: string; dest: string }[], options: ProjectSkillOptions): Promise<('symlink' | 'copy')[]> {
  const toSync = new Set<string>();
  const modes: ('symlink' | 'copy')[] = [];
  for (const { sourceDir, dest } of skills) modes.push(await projectOne(sourceDir, dest, options, toSync));
  fsyncDirsSync(toSync);
  return modes;
}

/**
 * One skill directory; adds to `toSync` the directories to fsync before the projection counts
 * as durable: the skill root when an entry was renamed there, the parents of a new skill root.
 */
async function projectOne(sourceDir: string, dest: string, given: ProjectSkillOptions, toSync: Set<string>): Promise<'symlink' | 'copy'> {
  const current = pathStateSync(dest);
  // auto keeps a copy a copy: Forge copied it (SF_PROJECTION_MODE=copy, or links failed there), and
  // an update run without the variable must not leave the installation half links, half copies
  const options = current.kind === 'dir' && given.mode === 'auto' ? { ...given, mode: 'copy' as const } : given;
  if (current.kind === 'symlink' && current.target === sourceDir && options.mode !== 'copy') return 'symlink';
  if (current.kind === 'dir' && options.mode !== 'symlink' && (await sameTree(dest, sourceDir))) return 'copy';

  const skillRoot = dirname(dest);
  // a new skill root (.claude/skills on a first install) must keep its name through a power cut too
  for (const parent of mkdirForDurable(skillRoot)) toSync.add(parent);
  mkdirSync(stagingDirFor(skillRoot), { recursive: true });
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
    toSync.add(skillRoot);
  } finally {
    // a copy that failed halfway can be a large tree: removed off this thread
    if (made === 'copy') await rm(tmp, { recursive: true, force: true });
    else rmSync(tmp, { force: true });
    removeIfEmptySync(stagingDirFor(skillRoot));
  }
  crashPoint('project:after-skill');
  return made;
}

/** Renames `tmp` to `dest`, moving an existing `dest` aside first when a plain rename cannot replace it (the caller fsyncs the directory). */
async function replaceEntry(tmp: string, dest: string, current: PathState): Promise<void> {
  const tmpIsLink = pathStateSync(tmp).kind === 'symlink';
  if (current.kind === 'absent' || (current.kind === 'symlink' && tmpIsLink)) {
    renameSync(tmp, dest);
  } else {
    const trash = stagingNameFor(dest, 'old');
    renameSync(dest, trash);
    renameSync(tmp, dest);
    await rm(trash, { recursive: true, force: true });
  }
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
  removeIfEmptySync(dir);
}

function removeIfEmptySync(dir: string): void {
  try {
    rmdirSync(dir);
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTEMPTY') || hasErrno(e, 'EEXIST')) return;
    throw e;
  }
}
