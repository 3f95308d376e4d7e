import { readdir } from 'node:fs/promises';
import { hasErrno } from '../errors/index.js';

/**
 * The names in `dir`, or none when it is missing (or not a directory): for scans of directories
 * that may not have been created yet. `unreadable: 'empty'` also takes a directory this user may
 * not read as empty (a scan of another program's files); other errors are thrown.
 */
export async function readdirIfPresent(dir: string, options: { unreadable?: 'empty' | 'throw' } = {}): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR')) return [];
    if (options.unreadable === 'empty' && hasErrno(e, 'EACCES')) return [];
    throw e;
  }
}
