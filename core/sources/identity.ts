import { createHash } from 'node:crypto';
import { isSecretQueryName } from './redact.js';

/**
 * Provisional identity of sources that are not Forge releases (ARCHITECTURE.md "Identity and
 * hashing"). Pure functions.
 *
 * - `canonical` is what Forge stores and shows: credential-free, re-resolvable (a git URL keeps a
 *   `.git` suffix the server may need, and its `#ref:subpath`).
 * - The identity key folds spellings of the same source together: lowercase scheme and host,
 *   default port removed, trailing slashes and a trailing `.git` removed, `git+` prefix and
 *   `https://h/x.git` / `git+https://h/x` unified, scp-like `user@host:path` read as
 *   `ssh://user@host/path` (the code-host convention), ref and subpath appended.
 * - `fingerprint` = sha256 hex of the identity key; `provisionalId` = `provisional/` + its first
 *   16 hex digits (64 bits: collisions need ~4 billion distinct sources).
 */

export const PROVISIONAL_PREFIX = 'provisional/';
export const PROVISIONAL_HEX_LENGTH = 16;

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443', 'ssh:': '22', 'git:': '9418' };

/**
 * A credential-free canonical form of a URL: lowercase scheme and host, default port dropped, no
 * fragment. `keepUser` keeps a bare ssh user name (`git@`), which addresses an account and is not
 * a secret; passwords are always dropped. `keepQuery` keeps the query (a download URL such as
 * `/download?f=kit.tgz` is not re-resolvable without it) minus parameters that carry a credential.
 */
export function canonicalUrl(input: string, options: { keepUser?: boolean; trimSlashes?: boolean; keepQuery?: boolean } = {}): string {
  const url = new URL(input);
  const scheme = url.protocol.toLowerCase();
  const port = url.port && url.port !== DEFAULT_PORTS[scheme] ? `:${url.port}` : '';
  const user = options.keepUser && url.username ? `${url.username}@` : '';
  let path = url.pathname;
  if (options.trimSlashes) path = path.replace(/\/+$/, '');
  const host = url.hostname.toLowerCase();
  const query = options.keepQuery ? [...url.searchParams].filter(([name]) => !isSecretQueryName(name)) : [];
  return `${scheme}//${user}${host}${port}${path}${query.length > 0 ? `?${new URLSearchParams(query).toString()}` : ''}`;
}

/**
 * The identity key of a non-git URL source (skill URL, archive URL): canonical form without its
 * query (ARCHITECTURE.md: the fingerprint leaves the query out), trailing slashes trimmed.
 */
export function urlIdentityKey(canonical: string): string {
  return canonical.replace(/\?.*$/, '').replace(/\/+$/, '');
}

/**
 * The identity key of a git source. `base` is the canonical clone URL (scheme URL or scp-like),
 * optionally prefixed with `git+`.
 */
export function gitIdentityKey(base: string, ref?: string, subpath?: string): string {
  let url = base.startsWith('git+') ? base.slice(4) : base;
  const scp = /^([^@/:]+@)?([^/:]+):(?!\/\/)(.*)$/.exec(url);
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    url = `ssh://${scp[1] ?? ''}${scp[2].toLowerCase()}/${scp[3].replace(/^\/+/, '')}`;
  }
  // a server answers for x and x.git alike; on disk (file://) they are two directories
  url = url.replace(/\/+$/, '');
  if (!/^file:/i.test(url)) url = url.replace(/\.git$/i, '').replace(/\/+$/, '');
  return `git+${url}${formatGitFragment(ref, subpath)}`;
}

/** `#ref`, `#ref:subpath`, `#:subpath` or '' — the one ref/subpath syntax (docs/sources.md). */
export function formatGitFragment(ref?: string, subpath?: string): string {
  if (!ref && !subpath) return '';
  return `#${ref ?? ''}${subpath ? `:${subpath}` : ''}`;
}

/** sha256 hex of an identity key. */
export function fingerprintOf(identityKey: string): string {
  return createHash('sha256').update(identityKey, 'utf8').digest('hex');
}

/** `provisional/<first 16 hex of fingerprint>` */
export function provisionalIdOf(fingerprint: string): string {
  return PROVISIONAL_PREFIX + fingerprint.slice(0, PROVISIONAL_HEX_LENGTH);
}

/** The identity triple every resolver returns. */
export function identity(identityKey: string): { fingerprint: string; provisionalId: string } {
  const fingerprint = fingerprintOf(identityKey);
  return { fingerprint, provisionalId: provisionalIdOf(fingerprint) };
}
