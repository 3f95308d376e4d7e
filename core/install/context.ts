import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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

/** Where a command acts: --scope when given, else the project around cwd, else the user scope. */
export function resolveScope(option: Scope | undefined, session: Pick<Session, 'cwd' | 'home'>): { scope: Scope; projectRoot?: string } {
  if (option === 'user') return { scope: 'user' };
  const root = findProjectRoot(session.cwd, session.home);
  if (option === 'project') return { scope: 'project', projectRoot: root ?? session.cwd };
  return root ? { scope: 'project', projectRoot: root } : { scope: 'user' };
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
