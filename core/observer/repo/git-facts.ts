import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { hasErrno } from '../../errors/index.js';
import { parseRemotes } from './remote.js';

/**
 * What the observer resolves from a session's working directory by reading the Git metadata
 * directly (no git process, no network): canonical path, worktree root, the worktree's own git
 * directory, the common directory shared by linked worktrees, remotes and the current commit.
 */
export interface GitFacts {
  /** realpath of the working directory */
  canonicalCwd: string;
  /** directory holding `.git` (a directory, or a file for linked worktrees and submodules) */
  worktreeRoot: string;
  /** the worktree-specific git directory */
  gitDir: string;
  /** the common git directory (equals gitDir for the main worktree) */
  commonDir: string;
  /** remote name -> fetch URL as configured (may carry credentials: never exported) */
  remotes: Record<string, string>;
  /** current commit, when HEAD resolves */
  head?: string;
  /** the branch HEAD points to, when not detached */
  branch?: string;
}

const readText = async (p: string): Promise<string | undefined> => {
  try {
    return await readFile(p, 'utf8');
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR') || hasErrno(e, 'EISDIR')) return undefined;
    throw e;
  }
};

async function gitDirAt(dir: string): Promise<string | undefined> {
  const dotGit = join(dir, '.git');
  let st;
  try {
    st = await stat(dotGit);
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR')) return undefined;
    throw e;
  }
  if (st.isDirectory()) return dotGit;
  const m = /^gitdir:\s*(.+?)\s*$/m.exec((await readText(dotGit)) ?? '');
  return m ? resolve(dir, m[1]) : undefined;
}

async function resolveRef(commonDir: string, gitDir: string, ref: string): Promise<string | undefined> {
  for (const base of [gitDir, commonDir]) {
    const loose = (await readText(join(base, ...ref.split('/'))))?.trim();
    if (loose && /^[0-9a-f]{40,64}$/.test(loose)) return loose;
  }
  const packed = (await readText(join(commonDir, 'packed-refs'))) ?? '';
  for (const line of packed.split('\n')) {
    const [sha, name] = line.trim().split(' ');
    if (name === ref && /^[0-9a-f]{40,64}$/.test(sha)) return sha;
  }
  return undefined;
}

/** Git facts of `cwd`, or undefined when it is not inside a Git worktree (or does not exist). */
export async function gitFacts(cwd: string): Promise<GitFacts | undefined> {
  let canonicalCwd: string;
  try {
    canonicalCwd = await realpath(cwd);
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR') || hasErrno(e, 'EACCES')) return undefined;
    throw e;
  }
  for (let dir = canonicalCwd; ; dir = dirname(dir)) {
    const gitDir = await gitDirAt(dir);
    if (gitDir) {
      const commondirText = (await readText(join(gitDir, 'commondir')))?.trim();
      const commonDir = commondirText ? (isAbsolute(commondirText) ? commondirText : resolve(gitDir, commondirText)) : gitDir;
      const headText = ((await readText(join(gitDir, 'HEAD'))) ?? '').trim();
      const refMatch = /^ref:\s*(\S+)$/.exec(headText);
      const head = refMatch ? await resolveRef(commonDir, gitDir, refMatch[1]) : /^[0-9a-f]{40,64}$/.test(headText) ? headText : undefined;
      return {
        canonicalCwd,
        worktreeRoot: dir,
        gitDir: await realpath(gitDir).catch(() => gitDir),
        commonDir: await realpath(commonDir).catch(() => commonDir),
        remotes: parseRemotes((await readText(join(commonDir, 'config'))) ?? ''),
        ...(head ? { head } : {}),
        ...(refMatch?.[1].startsWith('refs/heads/') ? { branch: refMatch[1].slice('refs/heads/'.length) } : {}),
      };
    }
    if (dirname(dir) === dir) return undefined;
  }
}
