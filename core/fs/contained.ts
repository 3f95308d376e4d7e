import { readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { SfError, hasErrno } from '../errors/index.js';

/**
 * Where a write to `path` would land once symbolic links are followed: the real path of its
 * deepest existing ancestor, with the missing rest appended; a dangling link counts as where it
 * points (writing through it would create that).
 */
export function landingPath(path: string): string {
  let missing: string[] = [];
  let at = resolve(path);
  for (let hops = 0; ; ) {
    try {
      return join(realpathSync(at), ...missing);
    } catch (e) {
      if (!hasErrno(e, 'ENOENT') && !hasErrno(e, 'ENOTDIR')) throw e;
    }
    let link: string | undefined;
    try {
      link = readlinkSync(at);
    } catch {
      link = undefined;
    }
    if (link !== undefined && hops++ < 40) {
      at = isAbsolute(link) ? link : resolve(dirname(at), link);
      continue;
    }
    const parent = dirname(at);
    if (parent === at) return join(at, ...missing);
    missing = [basename(at), ...missing];
    at = parent;
  }
}

const inside = (child: string, root: string) => {
  const rel = relative(root, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

/**
 * Where a write to `path`, a path inside `root`, would land when a symbolic link carries it out of
 * `root`; undefined when it stays inside (or `path` is outside `root` to begin with).
 */
function escapeOf(path: string, root: string): string | undefined {
  if (!inside(resolve(path), resolve(root))) return undefined;
  const landing = landingPath(path);
  return inside(landing, landingPath(root)) ? undefined : landing;
}

/**
 * Refuses (SF_E_UNSAFE_PATH) a write to `path`, a path inside the project, that a symbolic link
 * would carry out of the project: a repository can ship `.claude/skills -> ~/.ssh` or a settings
 * file linked to the user's own config, and installing into that project must not write there.
 * Links that stay inside the project are fine, and so is a path outside the project to begin with
 * (a host whose config lives in the user's home, such as Codex's).
 */
export function assertLandsInProject(path: string, projectRoot: string, what: string): void {
  const landing = escapeOf(path, projectRoot);
  if (landing === undefined) return;
  throw new SfError('SF_E_UNSAFE_PATH', `${what} ${path} leads out of the project ${projectRoot} through a symbolic link (to ${landing}); refusing to write there`, {
    location: { file: path },
    hint: 'replace the link with a directory or file inside the project, or install for your user instead (--scope user)',
    data: { path, landing, projectRoot },
  });
}

/**
 * Refuses (SF_E_UNSAFE_PATH) a write to a user-scope config file inside `home` that a symbolic link
 * carries out of `home` (reliability-anchors #38): a dotfiles link inside the home directory is
 * followed and kept, one to anywhere else is not written through. A config file outside `home`
 * to begin with (CODEX_HOME=/opt/...) is the user's explicit choice and passes.
 */
export function assertLandsInHome(path: string, home: string, what: string): void {
  const landing = escapeOf(path, home);
  if (landing === undefined) return;
  throw new SfError('SF_E_UNSAFE_PATH', `${what} ${path} is a symbolic link out of your home directory ${home} (to ${landing}); refusing to write there`, {
    location: { file: path },
    hint: 'keep the config file (or the dotfiles directory it links to) inside your home directory, or edit it yourself',
    data: { path, landing, home },
  });
}
