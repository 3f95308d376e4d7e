import { randomUUID } from 'node:crypto';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { hasErrno, SfError } from '../errors/index.js';
import type { InstallationCache } from '../library/db.js';
import { userHome, sfPaths, type SfPaths } from '../library/paths.js';
import type { AdapterRegistry } from './adapter-lookup.js';
import type { HostContext, Scope } from './host-adapter.js';
import { isoUtc } from '../telemetry/time.js';

/** Everything an install operation needs from its surroundings. */
export interface Session {
  env: NodeJS.ProcessEnv;
  cwd: string;
  home: string;
  paths: SfPaths;
  adapters: AdapterRegistry;
  now: () => string;
  newId: () => string;
  /** progress messages for long work (the CLI prints them on stderr) */
  progress: (message: string) => void;
  /** see HostContext.memo: set by a pass over many installations (doctor) */
  memo?: Map<string, Promise<unknown>>;
  /** the installations as this process last read or wrote them: set by a pass of many mutations (`update --all`), which then reads the library once */
  libraryCache?: InstallationCache;
}

/** A Session from the process environment. */
export function sessionFrom(env: NodeJS.ProcessEnv, cwd: string, adapters: AdapterRegistry, progress: (m: string) => void = () => undefined): Session {
  return {
    env,
    cwd: resolve(cwd),
    home: userHome(env),
    paths: sfPaths(env),
    adapters,
    // neither wakes up what a fresh process does not need yet: the time zone, or WebCrypto
    now: () => isoUtc(),
    newId: () => randomUUID(),
    progress,
  };
}

/**
 * The project `cwd` belongs to: the nearest ancestor holding `.git`, but never the home directory
 * itself or anything above it (a dotfiles repository in $HOME is not a project).
 */
export function findProjectRoot(cwd: string, home: string): string | null {
  let dir = resolve(cwd);
  const homeDir = resolve(home);
  for (;;) {
    if (dir === homeDir) return null;
    if (existsSync(join(dir, '.git'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * Where a command acts: --scope when given, else the project around cwd, else the user scope.
 * `--scope project` outside any repository takes cwd as the project, but never the home
 * directory: its skill directories are the user scope's (SF_E_USAGE).
 */
export function resolveScope(option: Scope | undefined, session: Pick<Session, 'cwd' | 'home'>): { scope: Scope; projectRoot?: string } {
  if (option === 'user') return { scope: 'user' };
  const root = findProjectRoot(session.cwd, session.home);
  if (option === 'project') {
    const projectRoot = root ?? session.cwd;
    if (sameDir(projectRoot, session.home)) {
      throw new SfError('SF_E_USAGE', `--scope project needs a project, and ${projectRoot} is your home directory: its skill directories (~/.claude/skills, ...) are the user scope's`, {
        hint: 'run the command inside a project (a directory below your home, usually a git repository), or use --scope user to install for every project',
      });
    }
    return { scope: 'project', projectRoot };
  }
  return root ? { scope: 'project', projectRoot: root } : { scope: 'user' };
}

/**
 * The project `sf skit remove --project <path>` names: the project around `path` when it exists,
 * else `path` itself (a project that was deleted or moved is recorded under its old root).
 */
export function explicitProjectRoot(path: string, session: Pick<Session, 'cwd' | 'home'>): string {
  const abs = resolve(session.cwd, path);
  if (projectRootGone(abs)) return realParent(abs);
  const real = realpathSync(abs);
  return findProjectRoot(real, session.home) ?? real;
}

/** `path` with its nearest existing ancestor resolved through links, as cwd-derived roots were recorded. */
function realParent(path: string): string {
  const parent = dirname(path);
  if (parent === path) return path;
  return join(existsSync(parent) ? realpathSync(parent) : realParent(parent), basename(path));
}

/**
 * Whether a recorded project root is no longer there (deleted, moved, a removed git worktree).
 * Such an installation is reported, never repaired: a repair would create the directory again.
 */
export function projectRootGone(root: string): boolean {
  try {
    return !statSync(root).isDirectory();
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR')) return true;
    throw e;
  }
}

/** Whether two paths are one directory (by name, or through a link). */
function sameDir(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** The HostContext adapters get for a scope. */
export function hostContext(session: Pick<Session, 'home' | 'env' | 'paths' | 'cwd' | 'memo'>, agent: string, scope: Scope, projectRoot?: string): HostContext {
  return {
    ...(session.memo ? { memo: session.memo } : {}),
    home: session.home,
    scope,
    ...(scope === 'project' && projectRoot ? { projectRoot } : {}),
    cwd: session.cwd,
    backupDir: join(session.paths.backups, agent),
    env: session.env,
  };
}
