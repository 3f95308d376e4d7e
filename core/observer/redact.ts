/**
 * The metadata redaction rules shared by the built-in fan-out and the generated otelcol-contrib
 * config (its redaction processor gets the same patterns). Normalized events carry no content,
 * so this is defence in depth: values that look like credentials are masked wherever they are
 * sent (attributes, resources, span names, log bodies) and attributes whose keys name secrets
 * are removed before anything leaves the machine.
 */

/**
 * Attribute keys that are removed (Go RE2 and JS compatible). `token` only as a credential: a
 * whole key segment (`token`, `auth.token`, `token.value`) or a name ending in `_token`/`-token`
 * (`github_token`, `x-auth-token`); counts such as gen_ai.usage.input_tokens and
 * agent.skill.instructions.token_count are registry metadata and stay.
 */
export const BLOCKED_KEY_PATTERN = '(?i).*(secret|password|passwd|api[_-]?key|authorization|cookie|credential|(^|[._-])token($|\\.)).*';

/** Values masked wherever they appear in a string attribute (Go RE2 and JS compatible). */
export const BLOCKED_VALUE_PATTERNS = [
  'sk-[A-Za-z0-9_-]{20,}',
  'gh[pousr]_[A-Za-z0-9]{36,}',
  'github_pat_[A-Za-z0-9_]{22,}',
  'AKIA[0-9A-Z]{16}',
  'xox[baprs]-[A-Za-z0-9-]{10,}',
  'eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}',
] as const;

// the same alternation without the leading/trailing `.*` (equivalent for a search, and no backtracking)
const KEY_RE = new RegExp(BLOCKED_KEY_PATTERN.replace('(?i).*', '').replace(/\.\*$/, ''), 'i');
const VALUE_RE = new RegExp(BLOCKED_VALUE_PATTERNS.join('|'), 'g');
export const MASK = '****';

/** `text` with credential-looking values masked (for what is not an attribute: span names, log bodies). */
export const redactText = (text: string): string => text.replace(VALUE_RE, MASK);

function redactValue(v: unknown): unknown {
  if (typeof v === 'string') return redactText(v);
  if (Array.isArray(v)) return v.map(redactValue);
  return v;
}

/** A copy of `attrs` without secret-named keys and with credential-looking values masked. */
export function redactAttributes<T extends Record<string, unknown>>(attrs: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attrs)) if (!KEY_RE.test(k)) out[k] = redactValue(v);
  return out as T;
}
