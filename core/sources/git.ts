import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describeTree } from './describe.js';
import { cloneOverHttp } from './git-http.js';
import { looksLikeGit, parseGitSource } from './git-spec.js';
import { cloneWithSystemGit } from './git-system.js';
import { identity } from './identity.js';
import { limitsOf } from './limits.js';
import { redactText } from './redact.js';
import { subdirOf } from './subdir.js';
import type { Diagnostic } from '../errors/index.js';
import type { ResolvedSource, ResolveOptions, SourceResolver } from './types.js';

/**
 * Git sources: `<git-url>[#<ref>][:<subpath>]` (see git-spec.ts and docs/sources.md). http(s)
 * goes through isomorphic-git; ssh://, scp-like and file:// through the system git. The checkout
 * lands in a fresh directory inside `workDir`, its `.git` is removed (the materialized tree is
 * content only), and the resolved commit is recorded.
 */
export const gitResolver: SourceResolver = {
  name: 'git',
  forms: [
    '<git-url>[#<ref>][:<subpath>] with https://host/repo.git, git+https://host/repo, ssh://[user@]host/repo, user@host:repo or file:///path/repo',
  ],
  matches: looksLikeGit,
  async resolve(input: string, options: ResolveOptions): Promise<ResolvedSource> {
    const spec = parseGitSource(input, options.version);
    const limits = limitsOf(options);
    const env = options.env ?? process.env;
    const dest = await mkdtemp(join(options.workDir, 'git-'));
    const clone =
      spec.transport === 'http'
        ? await cloneOverHttp({ url: spec.cloneUrl, ref: spec.ref, dest, limits, env })
        : await cloneWithSystemGit({ transport: spec.transport, url: spec.cloneUrl, ref: spec.ref, dest, env, timeoutMs: limits.gitTimeoutMs, budget: { maxBytes: limits.maxGitBytes, maxFiles: limits.maxGitFiles, maxDepth: limits.maxGitDepth } });
    await rm(join(dest, '.git'), { recursive: true, force: true });
    const shown = redactText(spec.canonical);
    const dir = await subdirOf(dest, spec.subpath, shown);
    const resolved = describeTree(
      dir,
      {
        kind: 'git',
        canonical: spec.canonical,
        ...identity(spec.identityKey),
        ref: clone.ref,
        commit: clone.commit,
        ...(spec.subpath ? { subpath: spec.subpath } : {}),
      },
      shown,
    );
    if (spec.sshPasswordDropped) resolved.diagnostics = [sshPasswordNote(shown), ...(resolved.diagnostics ?? [])];
    return resolved;
  },
};

/** The note that an ssh:// URL's password was not used (nor passed to git). */
function sshPasswordNote(shown: string): Diagnostic {
  return {
    code: 'SOURCE_SSH_PASSWORD_IGNORED',
    severity: 'warning',
    message: `the password in ${shown} was not used: ssh signs in with keys, never with a password in the URL, so it was removed before running git`,
    hint: 'drop the password from the source (ssh://user@host/path); make the key available with ssh-agent (ssh-add) or GIT_SSH_COMMAND',
  };
}
