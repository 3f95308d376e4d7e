import { symlinkSync } from 'node:fs';
import { basename, dirname, join, relative, isAbsolute, sep } from 'node:path';
import { SfError } from '../../core/errors/index.js';

/**
 * Filesystem operations the projection helpers use, injectable so tests can make links fail and
 * prove the copy fallback.
 */
export interface LinkOps {
  /** create a directory link at `path` pointing to `target` */
  symlink(target: string, path: string): Promise<void>;
}

export const defaultLinkOps: LinkOps = {
  // junctions need no privilege on Windows and behave like directory links for readers; made
  // synchronously like the rest of a projection's metadata calls (see project.ts)
  symlink: async (target, path) => symlinkSync(target, path, process.platform === 'win32' ? 'junction' : 'dir'),
};

/** How skill directories are projected: links into the store, copies, or links with a copy fallback. */
export type ProjectionMode = 'auto' | 'symlink' | 'copy';

/** The projection mode from SF_PROJECTION_MODE (auto when unset or unknown). */
export function projectionModeFrom(env: NodeJS.ProcessEnv): ProjectionMode {
  const v = env.SF_PROJECTION_MODE?.trim();
  if (!v) return 'auto';
  if (v === 'copy' || v === 'symlink' || v === 'auto') return v;
  // a typo must not quietly give links to a user who set this to avoid them
  throw new SfError('SF_E_USAGE', `SF_PROJECTION_MODE must be copy, symlink or auto, not "${v}"`, {
    hint: 'SF_PROJECTION_MODE=copy copies skills into agent directories, symlink links them to the store, auto (or unset) links and copies where links fail',
  });
}

/**
 * Where a skill directory is assembled before it is renamed into the skill root: a `.sf-tmp`
 * folder next to the skill root (same filesystem, so the rename is atomic, and outside the root,
 * so a host scanning it never sees a half-built skill).
 */
export function stagingDirFor(skillRoot: string): string {
  return join(dirname(skillRoot), '.sf-tmp');
}

/** A unique staging name for the skill directory `dest`. */
export function stagingNameFor(dest: string, tag: string): string {
  return join(stagingDirFor(dirname(dest)), `${basename(dest)}.${tag}.${process.pid}.${Math.random().toString(36).slice(2, 10)}`);
}

/** True when `path` is `root` or lies below it (absolute paths). */
export function isInsideDir(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(`..${sep}`));
}
