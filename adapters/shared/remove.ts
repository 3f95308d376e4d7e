import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { ProjectedPath } from '../../core/install/host-adapter.js';
import { fsyncDir, removeFileDurable } from '../../core/fs/atomic.js';
import { crashPoint } from '../../core/fs/crash-point.js';
import { isInsideDir, stagingDirFor, stagingNameFor } from './fs-ops.js';
import { pathState, removeIfEmpty } from './project.js';

export type RemoveOutcome = 'removed' | 'absent' | 'kept-foreign';

/**
 * Removes one projected skill directory, and only if it still is what Forge put there: a link
 * into the store (`storeRoot`) for a symlink projection, a directory for a copy. Anything else at
 * the path (the user replaced it) is left alone and reported as 'kept-foreign'. A copy is moved
 * out of the skill root atomically before it is deleted, so a host never sees half of it.
 */
export async function removeProjectedPath(p: ProjectedPath, storeRoot: string): Promise<RemoveOutcome> {
  const state = await pathState(p.path);
  if (state.kind === 'absent') return 'absent';
  if (state.kind === 'symlink') {
    const target = isAbsolute(state.target) ? state.target : resolve(dirname(p.path), state.target);
    if (!isInsideDir(target, storeRoot)) return 'kept-foreign';
    await removeFileDurable(p.path);
    crashPoint('unproject:after-skill');
    return 'removed';
  }
  if (state.kind !== 'dir' || p.mode !== 'copy') return 'kept-foreign';
  const skillRoot = dirname(p.path);
  await mkdir(stagingDirFor(skillRoot), { recursive: true });
  const trash = stagingNameFor(p.path, 'old');
  await rename(p.path, trash);
  await fsyncDir(skillRoot);
  await rm(trash, { recursive: true, force: true });
  await removeIfEmpty(stagingDirFor(skillRoot));
  crashPoint('unproject:after-skill');
  return 'removed';
}
