import { realpath, stat } from 'node:fs/promises';
import { join, relative, sep, isAbsolute } from 'node:path';
import { hasErrno, SfError } from '../errors/index.js';

/**
 * The absolute directory `subpath` names inside `root`, refusing one that is missing, not a
 * directory, or reaches outside `root` through a symlink. `subpath` is already a safe relative path.
 */
export async function subdirOf(root: string, subpath: string | undefined, shown: string): Promise<string> {
  if (!subpath) return root;
  const abs = join(root, ...subpath.split('/'));
  let real: string;
  try {
    real = await realpath(abs);
  } catch (err) {
    if (!hasErrno(err, 'ENOENT') && !hasErrno(err, 'ENOTDIR')) throw err;
    throw new SfError('SF_E_NOT_FOUND', `subpath "${subpath}" does not exist in ${shown}`, {
      hint: 'check the part after ":" in <source>#<ref>:<subpath>',
      data: { subpath },
    });
  }
  const rel = relative(await realpath(root), real);
  if (rel.startsWith('..' + sep) || rel === '..' || isAbsolute(rel)) {
    throw new SfError('SF_E_UNSAFE_PATH', `subpath "${subpath}" in ${shown} leads outside the repository through a symlink`, {
      hint: 'name a real directory of the repository after the ":" (not a symbolic link)',
      data: { subpath },
    });
  }
  if (!(await stat(real)).isDirectory()) {
    throw new SfError('SF_E_NOT_FOUND', `subpath "${subpath}" in ${shown} is a file, not a directory`, {
      hint: 'the subpath names the directory that holds the SKIT or skills',
      data: { subpath },
    });
  }
  return abs;
}
