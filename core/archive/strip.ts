import { SfError } from '../errors/index.js';
import type { AcceptedEntry } from './types.js';

/** How many leading wrapper directories to remove: 'auto' removes one only when it is the sole top-level entry. */
export type StripOption = 'auto' | 0 | 1;

/**
 * Decides which single top-level directory to strip (GitHub tarballs wrap everything in
 * `repo-<sha>/`). Returns the wrapper name, or null for none. With `1`, an archive that is not
 * wrapped in exactly one directory is refused rather than guessed at.
 */
export function wrapperToStrip(entries: readonly AcceptedEntry[], strip: StripOption): string | null {
  if (strip === 0) return null;
  const tops = new Set<string>();
  let looseTopFile = false;
  for (const e of entries) {
    const slash = e.path.indexOf('/');
    tops.add(slash === -1 ? e.path : e.path.slice(0, slash));
    if (slash === -1 && e.kind === 'file') looseTopFile = true;
  }
  const wrapper = tops.size === 1 && !looseTopFile ? [...tops][0] : null;
  if (strip === 1 && wrapper === null) {
    throw new SfError('SF_E_ARCHIVE_MALFORMED', 'the archive is not wrapped in a single top-level directory, so there is nothing to strip', {
      hint: "unpack with strip: 0, or strip: 'auto' to strip only when there is a single wrapper directory",
      data: { topLevel: [...tops].slice(0, 10) },
    });
  }
  return wrapper;
}

/** `path` relative to the stripped wrapper ('' for the wrapper itself). */
export function stripWrapper(path: string, wrapper: string | null): string {
  if (wrapper === null) return path;
  return path === wrapper ? '' : path.slice(wrapper.length + 1);
}
