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

/**
 * Where a credential may start: at the beginning of a value or after a character that is neither
 * alphanumeric nor `-`, so `sk-` inside a kebab-case name (`risk-assessment-checklist`,
 * `task-...`, `disk-...`) is not an OpenAI key. RE2 (the collector) has no lookbehind, so there the
 * boundary character is part of the match and is masked with the token; the built-in fan-out
 * (JS, lookbehind) keeps it.
 */
const TOKEN_START = '(?:^|[^A-Za-z0-9-])';
const JS_TOKEN_START = '(?<![A-Za-z0-9-])';

/** Values masked wherever they appear in a string attribute (Go RE2 and JS compatible). */
export const BLOCKED_VALUE_PATTERNS = [
  `${TOKEN_START}sk-[A-Za-z0-9_-]{20,}`,
  `${TOKEN_START}gh[pousr]_[A-Za-z0-9]{36,}`,
  `${TOKEN_START}github_pat_[A-Za-z0-9_]{22,}`,
  `${TOKEN_START}AKIA[0-9A-Z]{16}`,
  `${TOKEN_START}xox[baprs]-[A-Za-z0-9-]{10,}`,
  `${TOKEN_START}eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}`,
  // an HTTP bearer credential quoted in free text (an error message that echoes a request header)
  `${TOKEN_START}(?:Bearer|bearer|BEARER)[ \\t]+[A-Za-z0-9._~+/-]{16,}=*`,
] as const;

/**
 * Registry identity attributes: Forge's own ids, names and hashes of a skill, its SKIT and its
 * activations. Their values are not masked when the Forge library confirmed the identity (the
 * record names the SKIT, agent.skill.package.id): a skill called `sk-learn-pipelines` is a name,
 * and masking it would merge different skills into one id. An identity the library did not
 * confirm carries a name a host or a model wrote (a Skill tool argument), so it is checked like
 * any other value. The collector config lists them as ignored_keys: it only ever receives what
 * this redaction already let through.
 */
export const IDENTITY_KEYS = [
  'agent.skill.id',
  'agent.skill.name',
  'agent.skill.package.id',
  'agent.skill.activation.id',
  'agent.skill.activation.ids',
  'agent.skill.conflict.activation.ids',
  'agent.skill.replacement.id',
  'agent.skill.content.hash',
  'agent.skill.content.previous_hash',
  'artifact.hash',
] as const;
const IDENTITY = new Set<string>(IDENTITY_KEYS);

// the same alternation without the leading/trailing `.*` (equivalent for a search, and no backtracking)
const KEY_RE = new RegExp(BLOCKED_KEY_PATTERN.replace('(?i).*', '').replace(/\.\*$/, ''), 'i');
const VALUE_RE = new RegExp(BLOCKED_VALUE_PATTERNS.map((p) => p.replace(TOKEN_START, JS_TOKEN_START)).join('|'), 'g');
export const MASK = '****';

/** `text` with credential-looking values masked (for what is not an attribute: span names, log bodies). */
export const redactText = (text: string): string => text.replace(VALUE_RE, MASK);

function redactValue(v: unknown): unknown {
  if (typeof v === 'string') return redactText(v);
  if (Array.isArray(v)) return v.map(redactValue);
  return v;
}

/**
 * A copy of `attrs` without secret-named keys and with credential-looking values masked, except in
 * the identity attributes of a library-confirmed skill (see IDENTITY_KEYS).
 */
export function redactAttributes<T extends Record<string, unknown>>(attrs: T): T {
  const confirmed = isLibraryIdentity(attrs);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attrs)) if (!KEY_RE.test(k)) out[k] = confirmed && IDENTITY.has(k) ? v : redactValue(v);
  return out as T;
}

/** True when the record names the skill's SKIT: its identity came from the Forge library. */
export const isLibraryIdentity = (attrs: Record<string, unknown>): boolean => typeof attrs['agent.skill.package.id'] === 'string' && attrs['agent.skill.package.id'] !== '';

/**
 * A span name with credential-looking values masked, except the activation span's name when it is
 * `activate_skill <agent.skill.name>` of a library-confirmed skill (kept like the name attribute).
 */
export function redactSpanName(name: string, attrs: Record<string, unknown>): string {
  const skill = attrs['agent.skill.name'];
  if (isLibraryIdentity(attrs) && typeof skill === 'string' && name === `activate_skill ${skill}`) return name;
  return redactText(name);
}
