import { SfError } from '../errors/index.js';
import { checkRelativePath, PATH_PROBLEM_TEXT } from '../skit/safe-path.js';
import { canonicalUrl, formatGitFragment, gitIdentityKey } from './identity.js';
import { redactText, redactUrl } from './redact.js';

/**
 * The one git source syntax (docs/sources.md):
 *
 *   <git-url>[#<ref>][:<subpath>]    written as  <git-url>#<ref>  <git-url>#<ref>:<subpath>  <git-url>#:<subpath>
 *
 * where <git-url> is one of
 *   https://host/path.git, http://host/path.git        (a path ending in .git)
 *   git+https://host/path, git+http://host/path        (any path; the prefix says "this is git")
 *   ssh://[user@]host[:port]/path, git+ssh://...
 *   user@host:path                                     (scp-like ssh)
 *   file:///absolute/path, git+file:///absolute/path
 *
 * A ref is a branch, a tag or a full 40-hex commit; git refnames cannot contain ':', so the first
 * ':' after '#' starts the subpath. No GitHub shorthand and no /tree/ URL parsing.
 */

export type GitTransport = 'http' | 'ssh' | 'file';

export interface GitSpec {
  transport: GitTransport;
  /** the URL to clone, credentials included when the user gave them (memory only; never an ssh password) */
  cloneUrl: string;
  /** the ssh:// URL held a password, which was dropped from cloneUrl (ssh never uses it) */
  sshPasswordDropped?: true;
  /** credential-free canonical clone URL, `git+` prefix kept when given */
  base: string;
  ref?: string;
  subpath?: string;
  /** the canonical source string: base + #ref:subpath */
  canonical: string;
  identityKey: string;
}

const SCP = /^([A-Za-z0-9._~-]+)@([A-Za-z0-9.-]+):(?!\/\/)(.+)$/;
const FULL_SHA = /^[0-9a-f]{40}$/;

/** Whether `input` uses the git source syntax (cheap, syntactic). */
export function looksLikeGit(input: string): boolean {
  const url = input.split('#', 1)[0];
  if (/^git\+(https?|ssh|file):\/\//i.test(url)) return true;
  if (/^(ssh|file):\/\//i.test(url)) return true;
  if (/^https?:\/\//i.test(url)) return /\.git\/*$/i.test(url.split('?', 1)[0]);
  return SCP.test(url) && !url.startsWith('-');
}

/** True for a full 40-hex commit id. */
export function isFullSha(ref: string): boolean {
  return FULL_SHA.test(ref);
}

/** The refname rules of `git check-ref-format` that matter for safety and clarity. */
export function checkRef(ref: string): string | null {
  if (ref.startsWith('-')) return 'starts with "-"';
  if (ref.includes('..')) return 'contains ".."';
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(ref)) return 'contains a space, control character or one of ~ ^ : ? * [ \\';
  if (ref.endsWith('/') || ref.endsWith('.') || ref.endsWith('.lock') || ref.includes('//') || ref.includes('@{')) {
    return 'is not a valid git ref name';
  }
  return null;
}

/**
 * `source` (a git source) moved to `ref`, keeping its subpath: what `sf skit update --version`
 * and doctor's store repair fetch for an installation whose recorded source names another ref.
 * Other sources come back unchanged.
 */
export function withGitRef(source: string, ref: string): string {
  if (!looksLikeGit(source)) return source;
  const hashAt = source.indexOf('#');
  const fragment = hashAt < 0 ? '' : source.slice(hashAt + 1);
  const colon = fragment.indexOf(':');
  const subpath = colon < 0 ? undefined : fragment.slice(colon + 1) || undefined;
  return (hashAt < 0 ? source : source.slice(0, hashAt)) + formatGitFragment(ref, subpath);
}

/** Parses a git source; `version` (from --version) is the ref when the source names none. */
export function parseGitSource(input: string, version?: string): GitSpec {
  const hashAt = input.indexOf('#');
  const rawUrl = hashAt < 0 ? input : input.slice(0, hashAt);
  const fragment = hashAt < 0 ? undefined : input.slice(hashAt + 1);
  let ref: string | undefined;
  let subpath: string | undefined;
  if (fragment !== undefined) {
    const colon = fragment.indexOf(':');
    ref = (colon < 0 ? fragment : fragment.slice(0, colon)) || undefined;
    subpath = colon < 0 ? undefined : fragment.slice(colon + 1).replace(/\/+$/, '') || undefined;
  }
  const shown = redactText(rawUrl);
  if (version !== undefined) {
    if (ref !== undefined && ref !== version) {
      throw new SfError('SF_E_USAGE', `the source names ref "${ref}" but --version says "${version}"`, {
        hint: 'give the ref once: either <git-url>#<ref> or --version <ref>',
      });
    }
    ref = version;
  }
  if (ref !== undefined) {
    const problem = checkRef(ref);
    if (problem) throw new SfError('SF_E_SOURCE', `git ref "${ref}" in ${shown} ${problem}`, { hint: 'write <git-url>#<branch|tag|commit>[:<subpath>]' });
  }
  if (subpath !== undefined) {
    const problem = checkRelativePath(subpath);
    if (problem) {
      throw new SfError('SF_E_UNSAFE_PATH', `git subpath "${subpath}" in ${shown}: ${PATH_PROBLEM_TEXT[problem]}`, {
        hint: 'the subpath is a relative directory inside the repository, e.g. #main:skills/review',
      });
    }
  }
  const { transport, cloneUrl, base, sshPasswordDropped } = parseGitUrl(rawUrl, shown);
  const canonical = base + formatGitFragment(ref, subpath);
  return { transport, cloneUrl, base, ref, subpath, canonical, identityKey: gitIdentityKey(base, ref, subpath), ...(sshPasswordDropped ? { sshPasswordDropped } : {}) };
}

/** ssh reads a host or user that starts with "-" as an option (-oProxyCommand=...): refused before git or ssh runs. */
function refuseOptionLike(user: string, host: string, shown: string): void {
  if (!user.startsWith('-') && !host.startsWith('-')) return;
  throw new SfError('SF_E_SOURCE', `${shown} names an ssh ${host.startsWith('-') ? 'host' : 'user'} that starts with "-", which ssh would read as an option`, {
    hint: 'write the real host name, e.g. ssh://git@host/owner/repo.git',
  });
}

function parseGitUrl(rawUrl: string, shown: string): { transport: GitTransport; cloneUrl: string; base: string; sshPasswordDropped?: true } {
  const plus = /^git\+/i.test(rawUrl);
  const url = plus ? rawUrl.slice(4) : rawUrl;
  const prefix = plus ? 'git+' : '';
  const scp = SCP.exec(url);
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    refuseOptionLike(scp[1], scp[2], shown);
    const path = scp[3].replace(/\/+$/, '');
    return { transport: 'ssh', cloneUrl: url, base: `${scp[1]}@${scp[2].toLowerCase()}:${path}` };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SfError('SF_E_SOURCE', `${shown} is not a valid git URL`, { hint: 'write e.g. https://host/owner/repo.git#main' });
  }
  if (parsed.search) {
    throw new SfError('SF_E_SOURCE', `git URL ${redactUrl(url)} carries a query string, which git servers do not accept`, {
      hint: 'remove the ?... part; put the ref and subpath after # as <git-url>#<ref>:<subpath>',
    });
  }
  const scheme = parsed.protocol.toLowerCase();
  if (scheme === 'file:') {
    if (parsed.hostname && parsed.hostname !== 'localhost') {
      throw new SfError('SF_E_SOURCE', `file URL ${shown} names a host; only local file:///path URLs are supported`, {
        hint: 'write file:///absolute/path/to/repo (three slashes), or use ssh:// for a repository on another machine',
      });
    }
    const base = `file://${parsed.pathname.replace(/\/+$/, '')}`;
    return { transport: 'file', cloneUrl: base, base: prefix + base };
  }
  const transport: GitTransport = scheme === 'ssh:' ? 'ssh' : 'http';
  if (transport === 'ssh') refuseOptionLike(decodeURIComponent(parsed.username), decodeURIComponent(parsed.hostname), shown);
  // a bare ssh user (git@) addresses an account; http userinfo is always a credential
  const base = canonicalUrl(url, { keepUser: transport === 'ssh', trimSlashes: true });
  if (transport === 'ssh' && parsed.password) {
    // ssh authenticates with keys and never reads a password from the URL; on git's command line
    // it would only be visible to other local users (ps)
    parsed.password = '';
    return { transport, cloneUrl: parsed.toString().replace(/\/+$/, ''), base: prefix + base, sshPasswordDropped: true };
  }
  return { transport, cloneUrl: url.replace(/\/+$/, ''), base: prefix + base };
}
