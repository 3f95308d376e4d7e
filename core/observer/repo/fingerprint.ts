import { createHmac } from 'node:crypto';
import { hostname } from 'node:os';
import { basename, dirname, relative } from 'node:path';
import { isWithin } from '../../skit/safe-path.js';
import type { RepositoryLink } from '../config.js';
import type { GitFacts } from './git-facts.js';
import { normalizeRemote } from './remote.js';

/**
 * Separate pseudonymous fingerprints of a session's repository, worktree and workspace instance:
 * HMAC-SHA256 under the per-user key, so they are stable on this machine and irreversible.
 *   repository: `sf observe link` mapping, else the normalized origin (or first) remote, else the
 *               common git directory of a local-only repository
 *   worktree:   repository + which worktree of it (main or the linked worktree's git dir name),
 *               so concurrent worktrees of one repository never collapse into one
 *   workspace:  worktree + its canonical root on this host (one checkout instance)
 * Fingerprints are attribution evidence, not authorization. Pure given the key.
 */

export interface RepoIdentity {
  /** false: unregistered, not a repository, or ambiguous links — repo_unresolved */
  resolved: boolean;
  fingerprints: Partial<Record<'forge.repository.fingerprint' | 'forge.worktree.fingerprint' | 'forge.workspace.fingerprint', string>>;
  head?: string;
  /** why it is unresolved (diagnostics only) */
  reason?: 'not_a_repository' | 'ambiguous_link';
}

const hmac = (key: Buffer, kind: string, identity: string) => createHmac('sha256', key).update(`${kind}\u0000${identity}`).digest('hex');

/** The link that applies to `path`: the deepest link root containing it; two different repositories at that depth are ambiguous. */
export function matchLink(links: readonly RepositoryLink[], canonicalPath: string): RepositoryLink | 'ambiguous' | undefined {
  const hits = links.filter((l) => isWithin(canonicalPath, l.path.replace(/\/+$/, '') || '/'));
  if (hits.length === 0) return undefined;
  const depth = Math.max(...hits.map((l) => l.path.length));
  const deepest = hits.filter((l) => l.path.length === depth);
  return new Set(deepest.map((l) => l.repository)).size > 1 ? 'ambiguous' : deepest[0];
}

/** Fingerprints of a working directory from its git facts and link mappings. */
export function repoIdentity(key: Buffer, canonicalCwd: string, facts: GitFacts | undefined, links: readonly RepositoryLink[], host = hostname()): RepoIdentity {
  // a linked worktree belongs to the repository its main checkout was linked as (.git/worktrees/<name>
  // shares the main checkout's common dir): linking the main checkout must not split its worktrees off
  const mainRoot = facts && basename(facts.commonDir) === '.git' ? dirname(facts.commonDir) : undefined;
  const link = matchLink(links, facts?.worktreeRoot ?? canonicalCwd) ?? matchLink(links, canonicalCwd) ?? (mainRoot ? matchLink(links, mainRoot) : undefined);
  if (link === 'ambiguous') return { resolved: false, fingerprints: {}, reason: 'ambiguous_link' };
  let repository: string | undefined;
  if (link) repository = `link:${link.repository.toLowerCase()}`;
  else if (facts) {
    const remotes = facts.remotes;
    const url = remotes.origin ?? remotes[Object.keys(remotes).sort()[0]];
    const normalized = url ? normalizeRemote(url) : undefined;
    repository = normalized ? `remote:${normalized}` : `local:${facts.commonDir}`;
  }
  if (!repository) return { resolved: false, fingerprints: {}, reason: 'not_a_repository' };
  const root = facts?.worktreeRoot ?? (link ? link.path : canonicalCwd);
  const which = facts ? (facts.gitDir === facts.commonDir ? 'main' : relative(facts.commonDir, facts.gitDir)) : 'main';
  const worktree = `${repository}\u0000${which}`;
  return {
    resolved: true,
    fingerprints: {
      'forge.repository.fingerprint': hmac(key, 'repository', repository),
      'forge.worktree.fingerprint': hmac(key, 'worktree', worktree),
      'forge.workspace.fingerprint': hmac(key, 'workspace', `${worktree}\u0000${host}\u0000${root}`),
    },
    ...(facts?.head ? { head: facts.head } : {}),
  };
}
