import { lstatSync } from 'node:fs';
import { dirname, isAbsolute, relative, sep } from 'node:path';
import { SfError } from '../../core/errors/index.js';
import { assertLandsInHome, landingPath } from '../../core/fs/contained.js';

const inside = (child: string, root: string) => {
  const rel = relative(root, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

const isLink = (p: string): boolean => {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
};

/**
 * Refuses (SF_E_UNSAFE_PATH) a write to `path`, inside `home`, that a symbolic link would carry out
 * of `home`, naming the link that does it: a host's config directory linked to a dotfiles store
 * elsewhere is refused as that directory, not as a file under it that may not even exist yet.
 * Links that stay inside `home` are followed as before.
 */
export function assertWriteStaysInHome(path: string, home: string, what: string): void {
  const chain: string[] = [];
  for (let dir = dirname(path); dir !== home && dir.startsWith(`${home}${sep}`); dir = dirname(dir)) chain.unshift(dir);
  const root = landingPath(home);
  for (const dir of chain) {
    if (!isLink(dir)) continue;
    const landing = landingPath(dir);
    if (inside(landing, root)) continue;
    throw new SfError('SF_E_UNSAFE_PATH', `${dir} is a symbolic link out of your home directory ${home} (to ${landing}), so ${what} ${path} would be written there; refusing`, {
      location: { file: dir },
      hint: `keep ${dir} (or the dotfiles directory it links to) inside your home directory, or set it up yourself`,
      data: { path, link: dir, landing, home },
    });
  }
  assertLandsInHome(path, home, what);
}
