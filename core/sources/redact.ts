import { SfError } from '../errors/index.js';

/**
 * Credential redaction for anything a source string may leak into: error messages, logs, stored
 * records. Pure functions.
 */

// a scheme starts where no scheme character precedes it, and userinfo is bounded: without both, a
// long run of letters costs quadratic time (each position tried as the start of a scheme)
const USERINFO = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,63}:\/\/)([^/?#@\s]{0,8192}@)/gi;
/** userinfo with a password that is not a valid URL part (`user:se/cret@`, `user:pa?ss@`): everything up to the last @ of the word */
const LOOSE_USERINFO = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,63}:\/\/)([^\s@/]{0,256}:[^\s@]{0,8192}@)/gi;
/**
 * `user:password@` opening a word without a scheme: scp-like `user:password@host:path` (ssh takes
 * no password there, so whatever follows the colon is one) and `user:token@host/path`, which is
 * no source form but is echoed back in the error saying so. Masked up to the last @ of the word,
 * as a password may hold one.
 */
const SCP_PASSWORD = /(^|[\s"'(=<[,])([^\s@"'/:]+):[^\s@"'/][^\s"']{0,8192}@/g;
/** Query parameter names that carry a credential (pre-signed URLs, tokens, API keys). */
const SECRET_QUERY_NAMES = 'access_token|token|private_token|id_token|sig|signature|x-amz-[a-z-]+|x-goog-[a-z-]+|key|api_key|apikey|password|passwd|auth|secret|client_secret|credential|session';
const QUERY_SECRET = new RegExp(`([?&](?:${SECRET_QUERY_NAMES})=)[^&#\\s]*`, 'gi');
const SECRET_QUERY_NAME = new RegExp(`^(?:${SECRET_QUERY_NAMES})$`, 'i');

/** True for a query parameter name that carries a credential, which Forge never stores or prints. */
export function isSecretQueryName(name: string): boolean {
  return SECRET_QUERY_NAME.test(name);
}

/**
 * Removes `user:pass@` (and bare `token@`) from every URL in `text`, masks well-known secret query
 * parameters, and replaces each literal secret in `secrets` (e.g. the SF_GIT_TOKEN value).
 *
 * @example redactText('clone https://bob:hunter2@h/x.git failed') // 'clone https://***@h/x.git failed'
 */
export function redactText(text: string, secrets: readonly (string | undefined)[] = []): string {
  // a bare ssh user (ssh://git@host) addresses an account and is kept; anything else is masked
  let out = text
    .replace(LOOSE_USERINFO, '$1***@')
    .replace(USERINFO, (all, scheme: string, userinfo: string) => (/^ssh:\/\/$/i.test(scheme) && !userinfo.includes(':') ? all : `${scheme}***@`))
    .replace(SCP_PASSWORD, '$1$2:***@')
    .replace(QUERY_SECRET, '$1***');
  for (const secret of secrets) {
    // very short values would mask ordinary words; tokens are long
    if (secret && secret.length >= 4) out = out.split(secret).join('***');
  }
  return out;
}

/**
 * A URL safe to show: no userinfo, the query replaced by `?…` when present, no fragment.
 * Non-URLs go through `redactText`.
 */
export function redactUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return redactText(input);
  }
  const hadQuery = url.search.length > 0;
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return url.toString() + (hadQuery ? '?…' : '');
}

/** The userinfo of a URL, decoded, for use in memory only (Authorization headers, git onAuth). */
export function urlCredentials(input: string): { username: string; password: string } | undefined {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return undefined;
  }
  if (!url.username && !url.password) return undefined;
  return { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
}

/** `input` without userinfo (query kept: it may be needed to fetch, e.g. a signed URL); SF_E_SOURCE when it is not a URL. */
export function stripCredentials(input: string): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new SfError('SF_E_SOURCE', `${redactText(input)} is not a valid URL`, {
      hint: 'check the host, the port (1-65535) and that spaces and special characters in a password are percent-encoded (%2F for /, %23 for #)',
    });
  }
  url.username = '';
  url.password = '';
  return url.toString();
}
