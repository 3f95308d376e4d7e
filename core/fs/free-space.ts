import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { hasErrno } from '../errors/index.js';

/** Bytes an unprivileged write can still use on the filesystem `path` is on (or would be created on); undefined when statfs cannot tell. */
export function availableBytes(path: string): number | undefined {
  for (let p = path; ; p = dirname(p)) {
    try {
      const st = statfsSync(p);
      return st.bavail * st.bsize;
    } catch (e) {
      if (!hasErrno(e, 'ENOENT') && !hasErrno(e, 'ENOTDIR')) return undefined;
      if (dirname(p) === p) return undefined;
    }
  }
}

/**
 * Of places a failed write may have been under, the one whose filesystem has the least space
 * left: right after a write found a disk full, that is the full one (its index; 0 when statfs
 * cannot tell).
 */
export function fullestOf(paths: readonly string[]): number {
  let best = 0;
  let least = Number.POSITIVE_INFINITY;
  paths.forEach((p, i) => {
    const free = availableBytes(p);
    if (free !== undefined && free < least) [best, least] = [i, free];
  });
  return best;
}
