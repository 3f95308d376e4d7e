import { createHash } from 'node:crypto';
import { SKIT_ID_PATTERN } from '../../core/skit/skit-id.js';
import type { OtlpAttributes, OtlpValue } from '../../core/telemetry/otlp/index.js';
import { skitFrontmatterSchema } from '../../schemas/generated/skit-frontmatter.js';
import type { JsonValue } from '../projections/rows.js';

/**
 * Small pure helpers of the normalizer: typed attribute reads, storage-safe identity values,
 * JSON-safe values and timestamps.
 */

/** A non-empty string attribute. */
export function str(attrs: OtlpAttributes, key: string): string | undefined {
  const v = attrs[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A finite numeric attribute (int64 beyond 2^53 as the nearest double). */
export function num(attrs: OtlpAttributes, key: string): number | undefined {
  const v = attrs[key];
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'bigint') return Number(v);
  return undefined;
}

export function bool(attrs: OtlpAttributes, key: string): boolean | undefined {
  const v = attrs[key];
  return typeof v === 'boolean' ? v : undefined;
}

/** A string-array attribute (a single string counts as a one-element list). */
export function strList(attrs: OtlpAttributes, key: string): string[] | undefined {
  const v = attrs[key];
  if (typeof v === 'string') return v ? [v] : undefined;
  if (!Array.isArray(v)) return undefined;
  const out = v.filter((x): x is string => typeof x === 'string' && x !== '');
  return out.length ? out : undefined;
}

/**
 * The longest id stored as written: a contained skill id `<skit id>:<skill name>` at the schema
 * maxima (schemas/json/skit-frontmatter.schema.json: skitId 129, skillName 64), so every
 * registry-valid skill and SKIT id is kept readable and its SKIT can be read off it.
 */
export const MAX_SAFE_ID_LENGTH = 129 + 1 + 64;

/** Printable ASCII (0x21-0x7e), 1 to MAX_SAFE_ID_LENGTH characters (a loop: cheaper than a regex for ids this short). */
function isSafeId(value: string): boolean {
  const n = value.length;
  if (n === 0 || n > MAX_SAFE_ID_LENGTH) return false;
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

/**
 * An identity value as stored in keys and rows: printable ASCII up to MAX_SAFE_ID_LENGTH characters as is,
 * anything else (control characters, spaces, very long or non-ASCII values) as `h_<sha256/32>`,
 * so attacker-chosen strings never shape LMDB keys (reliability-anchors.md #72).
 */
export function safeId(value: string): string {
  return isSafeId(value) ? value : `h_${createHash('sha256').update(value).digest('hex').slice(0, 32)}`;
}

const SKILL_NAME = skitFrontmatterSchema.$defs.skillName;
const SKILL_NAME_PATTERN = new RegExp(SKILL_NAME.pattern);

/**
 * The SKIT of a contained skill id `<skit id>:<skill name>` (ARCHITECTURE "Identity") when both
 * parts are registry-valid, else undefined: an unresolved skill's id `<resolution>:<name>`
 * (`not_installed:my-own`, `ambiguous:review`; registry agent.skill.library.resolution) names no
 * package, and neither does a hashed h_ id.
 */
export function skitOfSkillId(skillId: string): string | undefined {
  const colon = skillId.lastIndexOf(':');
  if (colon < 0) return undefined;
  const skit = skillId.slice(0, colon);
  const name = skillId.slice(colon + 1);
  return name.length <= SKILL_NAME.maxLength && SKILL_NAME_PATTERN.test(name) && SKIT_ID_PATTERN.test(skit) ? skit : undefined;
}

export function idAttr(attrs: OtlpAttributes, key: string): string | undefined {
  const v = str(attrs, key);
  return v === undefined ? undefined : safeId(v);
}

export function idList(attrs: OtlpAttributes, key: string): string[] | undefined {
  const v = strList(attrs, key);
  if (v?.length === 1) return [safeId(v[0])]; // the usual case, without a Set and two more arrays
  return v && [...new Set(v.map(safeId))].sort();
}

/** An OTLP value as JSON: bigints as decimal strings, bytes as base64. */
export function jsonValue(v: OtlpValue): JsonValue {
  if (typeof v !== 'object' || v === null) return typeof v === 'bigint' ? v.toString() : v;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (Array.isArray(v)) return v.map(jsonValue);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [k, x] of Object.entries(v)) out[k] = jsonValue(x);
    return out;
  }
  return v;
}

/** Milliseconds of a decimal nanosecond string (no BigInt on the hot path). */
export function nanosToMsFast(nanos: string): number {
  return nanos.length <= 6 ? 0 : Number(nanos.slice(0, -6));
}

/**
 * RFC 3339 UTC with exactly nine fractional digits, so row timestamps compare correctly as
 * strings (`.1Z` vs `.12Z` would not).
 */
let lastSecond = '';
let lastPrefix = '';

export function isoNanos(nanos: string): string {
  const padded = nanos.length >= 10 ? nanos : nanos.padStart(10, '0');
  const second = padded.slice(0, -9);
  // events of a batch share their second: format the date part once per second
  if (second !== lastSecond) {
    lastPrefix = new Date(Number(second) * 1000).toISOString().slice(0, 20);
    lastSecond = second;
  }
  return `${lastPrefix}${padded.slice(-9)}Z`;
}

let lastMsPrefix = '';
let lastPrefixMs = 0;

const digit = (s: string, i: number): number => {
  const d = s.charCodeAt(i) - 48;
  return d >= 0 && d <= 9 ? d : Number.NaN;
};

/**
 * Date.parse of an isoNanos() timestamp (milliseconds, the extra digits dropped), without
 * parsing the date part again for every event of the same second. Anything else goes to Date.parse.
 */
export function msOfIso(iso: string): number {
  if (iso.length !== 30 || iso.charCodeAt(19) !== 46 || iso.charCodeAt(29) !== 90) return Date.parse(iso);
  const ms = digit(iso, 20) * 100 + digit(iso, 21) * 10 + digit(iso, 22);
  if (Number.isNaN(ms)) return Date.parse(iso);
  if (!iso.startsWith(lastMsPrefix) || lastMsPrefix === '') {
    lastMsPrefix = iso.slice(0, 19);
    lastPrefixMs = Date.parse(`${lastMsPrefix}Z`);
  }
  return lastPrefixMs + ms;
}

/** Nanoseconds between two decimal nanosecond strings, as milliseconds with microsecond precision. */
export function msBetween(fromNanos: string, toNanos: string): number {
  const d = Number(BigInt(toNanos) - BigInt(fromNanos)) / 1e6;
  return Math.round(d * 1000) / 1000;
}

/** The UTC day (YYYY-MM-DD) of a row timestamp. */
export const dayOf = (iso: string): string => iso.slice(0, 10);

/** Nanosecond string of an isoNanos() timestamp. */
export function nanosOfIso(iso: string): string {
  const seconds = Date.parse(`${iso.slice(0, 19)}Z`) / 1000;
  return `${seconds}${iso.slice(20, 29)}`.replace(/^0+(?=\d)/, '');
}
