/**
 * Removes credentials from text a server sent back before it reaches an error message: servers
 * echo what they were sent ("Bad credentials: token …"), and the token is never printed.
 */

const REDACTED = '[redacted]';
/** the value of an Authorization (or GitLab's PRIVATE-TOKEN) header quoted back: `authorization: token abc`, `"Authorization":"Bearer abc"` */
const AUTHORIZATION = /\b((?:authorization|private-token)["']?\s*[:=]\s*["']?)[^\s"',}]+(?:[ \t]+[^\s"',}]+)?/gi;
/** a credential after its scheme word; it must contain a digit, `_` or `-`, so prose ("token validation") stays */
const SCHEME_VALUE = /\b(token|bearer|basic)(\s+)(?=[^\s]*[0-9_-])[A-Za-z0-9._~+/=-]{8,}/gi;
/** GitHub and GitLab token formats (`ghp_…`, `github_pat_…`, `glpat-…`, …), wherever they appear */
const KNOWN_TOKEN = /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|gl(?:pat|oas|dt|rt|ptt|ft|imt|agent|soat|cbt|ffct)-[A-Za-z0-9_-]{20,})/g;

export function redactSecrets(text: string, token?: string): string {
  let out = text;
  if (token) {
    for (const form of new Set([token, encodeURIComponent(token), JSON.stringify(token).slice(1, -1)])) out = out.split(form).join(REDACTED);
  }
  return out.replace(AUTHORIZATION, `$1${REDACTED}`).replace(SCHEME_VALUE, `$1$2${REDACTED}`).replace(KNOWN_TOKEN, REDACTED);
}
