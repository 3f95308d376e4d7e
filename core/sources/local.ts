import { existsSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, resolve } from 'node:path';
import { hasErrno, SfError } from '../errors/index.js';
import { ARCHIVE_EXTENSION, materializeArchive, rejectVersion } from './archive.js';
import { describeTree } from './describe.js';
import { identity } from './identity.js';
import type { ResolvedSource, ResolveOptions, SourceResolver } from './types.js';

const EXPLICIT_PATH = /^(\/|\.{1,2}([\\/]|$)|~([\\/]|$)|[A-Za-z]:[\\/])/;
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** `~/x` against HOME; everything else against `cwd`. */
function absolute(input: string, cwd: string, env: NodeJS.ProcessEnv): string {
  if (input === '~' || input.startsWith('~/')) return resolve(env.HOME || homedir(), input.slice(2));
  return resolve(cwd, input);
}

/**
 * Local paths: a SKIT directory, a single-skill directory (SKILL.md at its root), any directory
 * with Agent Skills in the guaranteed locations, or an archive file. It claims explicit paths
 * (`/`, `./`, `../`, `~/`, `C:\`) and anything that exists relative to `cwd`, so an existing
 * directory named like `owner/name` wins over a hub id. The identity is the realpath (a path and
 * a symbolic link to it are one source), but the source Forge records and updates from is the
 * absolute path as given: `sf skit update` of `./kits/current` follows the link to where it
 * points then, not to where it pointed at install. The tree is used in place (not copied) for
 * directories, unpacked into `workDir` for archives.
 */
export function localResolver(cwd: string, env: NodeJS.ProcessEnv = process.env): SourceResolver {
  return {
    name: 'local',
    forms: ['./path/to/skit-or-skill-dir', './kit.tgz (also .zip, .tar, .tar.gz)'],
    matches(input: string): boolean {
      if (URL_SCHEME.test(input)) return false;
      return EXPLICIT_PATH.test(input) || existsSync(absolute(input, cwd, env));
    },
    async resolve(input: string, options: ResolveOptions): Promise<ResolvedSource> {
      rejectVersion(input, options);
      const abs = absolute(input, options.cwd, options.env ?? env);
      let real: string;
      try {
        // synchronous, like existsSync above: two quick calls, not worth two thread-pool round trips
        real = realpathSync(abs);
      } catch (err) {
        if (!hasErrno(err, 'ENOENT') && !hasErrno(err, 'ENOTDIR')) throw err;
        throw new SfError('SF_E_NOT_FOUND', `no file or directory at ${abs}`, {
          hint: 'check the path; relative paths are resolved against the current directory',
          data: { path: abs },
        });
      }
      const info = statSync(real);
      const base = { canonical: abs, ...identity(real) };
      if (info.isDirectory()) {
        const resolved = describeTree(real, { ...base, kind: 'local-dir' }, real);
        return resolved.rootSkill ? { ...resolved, kind: 'local-skill' } : resolved;
      }
      if (info.isFile() && ARCHIVE_EXTENSION.test(basename(real))) {
        const dir = await materializeArchive(real, options.workDir);
        return describeTree(dir, { ...base, kind: 'archive' }, real);
      }
      throw new SfError('SF_E_SOURCE', `${real} is a file but not a .zip, .tar, .tar.gz or .tgz archive`, {
        hint: 'give the directory that holds README.md or SKILL.md, or an archive of it',
        data: { path: real },
      });
    },
  };
}
