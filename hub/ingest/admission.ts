import type {
  OtlpAttributes, OtlpLogRecord, OtlpMetric, OtlpRequest, OtlpSpan, OtlpValue, ResourceGroup,
} from '../../core/telemetry/otlp/index.js';
import { DEFAULT_OTLP_LIMITS, valueToWire } from '../../core/telemetry/otlp/index.js';
import { valueFromWire, type WireMode } from '../../core/telemetry/otlp/value.js';
import { logFingerprint } from '../normalize/fingerprint.js';
import { CONTENT_ATTRIBUTES, isIdentityAttribute, METADATA_ALLOWLIST, METRIC_DIMENSIONS } from './allowlist.js';
import { OTHER_VALUE, type CardinalityScope } from './cardinality.js';
import { DEFAULT_INGEST_LIMITS } from './limits.js';
import { isForgeScopeName, isRegisteredSpanEventName, isScopeNameShape, isSeverityText, isVersionString, REDACTED_NAME, spanNameClass } from './names.js';
import { fitsType, keyFacts, REGISTERED_EVENT_NAMES, type KeyFacts } from './registry-values.js';

/**
 * Admission: what of a decoded request the hub keeps. Pure over its inputs (the cardinality
 * scope is the only state); mutates the request in place for speed and reports what it changed.
 *
 * - records past `maxRecords` are rejected (partial_success), the rest kept in order;
 * - without content opt-in, attributes outside the metadata-only allowlist, allowlisted
 *   attributes whose value is outside a closed list of values (an array keeps its listed
 *   elements), log bodies, span status messages and trace state are dropped, and the free-form
 *   names (event and span event names, span names, scope, severity text) keep only what the
 *   registry defines (names.ts); metric points keep only the bounded metric dimensions;
 * - schema validation: a registry attribute whose value does not have the registry's type (a
 *   kvlist, a string where a count is expected) is counted as a type mismatch, and dropped
 *   without content opt-in (it may be content in disguise; with content on it is kept as sent);
 *   an enum value outside the registry's members is counted as an unknown enum value and kept
 *   (enums are open: a newer convention may add members);
 * - non-identity string values (array elements included) past the distinct-values limit fold
 *   into `__other__`, except registered values (enum members, catalog event names), which are a
 *   bounded vocabulary: so an always-retain event is never folded away;
 * - attribute keys longer than `maxKeyLength` are dropped;
 * - a log record without an event id gets the fingerprint of the record as received (before any
 *   of the above) as its event id, so a retry dedupes however admission treats it by then;
 * - strings that are not well-formed UTF-16 (lone surrogates from JSON escapes) are repaired
 *   with U+FFFD, so nothing malformed reaches storage keys.
 */

export interface AdmissionCounts {
  accepted: number;
  rejected: number;
  /** attributes, values outside a closed list, bodies, trace state and names dropped or redacted by the metadata-only policy */
  droppedContent: number;
  /** registry attributes whose value is not of the registry's type (schema validation failures): dropped without content opt-in, kept with it */
  typeMismatches: number;
  /** enum attribute values (array elements too) that are no member of the registry's enum: kept, counted */
  unknownEnumValues: number;
  /** of droppedContent: free-form names redacted (event, span, span event, scope, severity) */
  redactedNames: number;
  /** attributes dropped by the key length limit */
  droppedLimits: number;
  /** values folded into `__other__` by the cardinality limit */
  foldedCardinality: number;
  /** strings repaired with U+FFFD */
  sanitized: number;
  /** log records given the fingerprint of the record as received as their event id */
  stamped: number;
}

export interface AdmissionOptions {
  contentCollection: boolean;
  maxRecords: number;
  cardinality: CardinalityScope;
  /** attribute keys longer than this are dropped (counted in droppedLimits); default the ingest default */
  maxKeyLength?: number;
  /** the wire form of the request's exponential-histogram and summary points (the request's encoding); default protobuf */
  wireMode?: WireMode;
}

interface Ctx extends AdmissionCounts {
  content: boolean;
  card: CardinalityScope;
  maxKeyLength: number;
  wireMode: WireMode;
}

/** Pseudo-keys under which the guard counts the free-form names of a record. */
const NAME_KEYS = ['<event_name>', '<severity_text>', '<span_name>', '<span_event_name>', '<scope_name>', '<scope_version>'];

/** The bounded key vocabulary of the cardinality guard (never crowded out by free-form keys). */
export const CARDINALITY_VOCABULARY: ReadonlySet<string> = new Set([...METADATA_ALLOWLIST, ...CONTENT_ATTRIBUTES, 'event.name', ...NAME_KEYS]);

// ES2024 String methods (Node 20 has them; the project's TypeScript lib is ES2023)
type Es2024String = string & { isWellFormed(): boolean; toWellFormed(): string };

function cleanString(s: string, ctx: Ctx): string {
  if ((s as Es2024String).isWellFormed()) return s;
  ctx.sanitized++;
  return (s as Es2024String).toWellFormed();
}

/** The value with malformed strings repaired: the same value (not a copy) when nothing needed repair. */
function cleanValue(v: OtlpValue, ctx: Ctx): OtlpValue {
  if (typeof v === 'string') return cleanString(v, ctx);
  if (Array.isArray(v)) {
    let out: OtlpValue[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x = cleanValue(v[i], ctx);
      if (x !== v[i]) (out ??= v.slice())[i] = x;
    }
    return out ?? v;
  }
  if (v && typeof v === 'object' && !(v instanceof Uint8Array)) {
    let changed = false;
    const out: OtlpAttributes = {};
    for (const [k, x] of Object.entries(v)) {
      const key = cleanString(k, ctx);
      const value = cleanValue(x, ctx);
      if (key !== k || value !== x) changed = true;
      out[key] = value;
    }
    return changed ? out : v;
  }
  return v;
}

const outsideClosed = (facts: KeyFacts | undefined, x: OtlpValue): boolean => facts?.closed !== undefined && !facts.closed.has(x as string);

/** One string value through the cardinality guard (registered values bypass it); counts a fold. */
function admitString(key: string, value: string, facts: KeyFacts | undefined, ctx: Ctx): string {
  if (facts?.vocabulary?.has(value) === true) return value;
  const admitted = ctx.card.admit(key, value);
  if (admitted !== value) ctx.foldedCardinality++;
  return admitted;
}

/**
 * A repaired value, its string elements (non-identity keys) through the cardinality guard. For a
 * metadata-only account, elements outside a closed list (the registry's `allowedValues`) are
 * content and dropped, counted.
 */
function admitValue(key: string, v: OtlpValue, facts: KeyFacts | undefined, ctx: Ctx): OtlpValue {
  let clean = cleanValue(v, ctx);
  if (!ctx.content && Array.isArray(clean) && clean.some((x) => outsideClosed(facts, x))) {
    const kept = clean.filter((x) => !outsideClosed(facts, x));
    ctx.droppedContent += clean.length - kept.length;
    clean = kept;
  }
  // registry keys know whether they are identity; others (content-on accounts) ask the rule
  if (facts ? facts.identity : isIdentityAttribute(key)) return clean;
  if (typeof clean === 'string') return admitString(key, clean, facts, ctx);
  if (!Array.isArray(clean)) return clean;
  let out: OtlpValue[] | undefined;
  for (let i = 0; i < clean.length; i++) {
    const x = clean[i];
    if (typeof x !== 'string') continue;
    const admitted = admitString(key, x, facts, ctx);
    if (admitted !== x) (out ??= clean.slice())[i] = admitted;
  }
  return out ?? clean;
}

/**
 * Whether an attribute is content for a metadata-only account: outside the allowlist, or a value
 * of the registry's type that is outside a closed list or an unregistered event name. (A value
 * of the wrong type under an allowlisted key is a schema validation failure: see admitAttributes.)
 */
function isContent(key: string, v: OtlpValue, allowed: ReadonlySet<string>, facts: KeyFacts | undefined, mistyped: boolean): boolean {
  if (!allowed.has(key)) return true;
  if (mistyped) return false;
  if (typeof v === 'string' && outsideClosed(facts, v)) return true;
  return key === 'event.name' && !REGISTERED_EVENT_NAMES.has(v as string);
}

/** Counts the values of an enum attribute that are no member of the registry's enum (they are kept: enums are open). */
function countUnknownMembers(v: OtlpValue, facts: KeyFacts | undefined, ctx: Ctx): void {
  const members = facts?.members;
  if (members === undefined) return;
  if (typeof v === 'string') {
    if (!members.has(v)) ctx.unknownEnumValues++;
  } else if (Array.isArray(v)) for (const x of v) if (typeof x === 'string' && !members.has(x)) ctx.unknownEnumValues++;
}

/** The admitted form of one attribute map (a new object only when something changed). */
function admitAttributes(attrs: OtlpAttributes, allowed: ReadonlySet<string>, ctx: Ctx): OtlpAttributes {
  let out: OtlpAttributes | undefined;
  const keys = Object.keys(attrs);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const v = attrs[key];
    let nextKey = key;
    const facts = keyFacts(key);
    const mistyped = !fitsType(facts, v);
    const content = isContent(key, v, allowed, facts, mistyped);
    if (content || mistyped) {
      // without content opt-in it is dropped: as content, or (an allowlisted key) as a schema
      // validation failure, counted apart; with content on it is kept as sent (a wrong type still counted)
      const dropped = !ctx.content ? (content ? 'droppedContent' : 'typeMismatches') : key.length > ctx.maxKeyLength ? 'droppedLimits' : undefined;
      if (dropped) {
        ctx[dropped]++;
        out ??= copyUpTo(attrs, keys, i);
        continue;
      }
      if (mistyped) ctx.typeMismatches++;
      nextKey = cleanString(key, ctx);
    }
    if (!mistyped) countUnknownMembers(v, facts, ctx);
    const next = v !== null && typeof v === 'object' && !Array.isArray(v) ? cleanValue(v, ctx) : admitValue(nextKey, v, nextKey === key ? facts : keyFacts(nextKey), ctx);
    if (out) out[nextKey] = next;
    else if (next !== v || nextKey !== key) {
      out = copyUpTo(attrs, keys, i);
      out[nextKey] = next;
    }
  }
  return out ?? attrs;
}

function copyUpTo(attrs: OtlpAttributes, keys: string[], end: number): OtlpAttributes {
  const out: OtlpAttributes = {};
  for (let j = 0; j < end; j++) out[keys[j]] = attrs[keys[j]];
  return out;
}

/**
 * How admission treats a free-form name: `registered` (the registry's vocabulary) is kept as is;
 * `shaped` (metadata by its form, but open-ended) is kept through the cardinality guard; `free`
 * is content: redacted for a metadata-only account, through the guard with content on.
 */
type NameClass = 'registered' | 'shaped' | 'free';

/**
 * A free-form name by its class: `redacted` (undefined: removed) replaces a free name for a
 * metadata-only account (counted), and `folded` a name past the cardinality limit of its
 * pseudo-key (counted).
 */
function admitName(name: string, kind: NameClass, pseudoKey: string, redacted: string | undefined, folded: string | undefined, ctx: Ctx): string | undefined {
  const clean = cleanString(name, ctx);
  if (kind === 'registered') return clean;
  if (kind === 'free' && !ctx.content) {
    ctx.droppedContent++;
    ctx.redactedNames++;
    return redacted;
  }
  const admitted = ctx.card.admit(pseudoKey, clean);
  if (admitted === clean) return clean;
  ctx.foldedCardinality++;
  return folded;
}

/**
 * Log record attributes: the metadata allowlist plus the deprecated `event.name` attribute, which
 * older SDKs send instead of the EventName field. It is the event's name (metadata, not content,
 * when it is a catalog event name), so it is admitted for every account and the normalizer reads
 * it (event.ts logEvent).
 */
const LOG_ALLOWLIST: ReadonlySet<string> = new Set([...METADATA_ALLOWLIST, 'event.name']);

function admitLog(r: OtlpLogRecord, ctx: Ctx, fingerprintOf: (() => string) | undefined): void {
  // taken before anything changes the record: what was received, not what the current policy keeps
  const fp = fingerprintOf?.();
  r.attributes = admitAttributes(r.attributes, LOG_ALLOWLIST, ctx);
  if (r.body !== undefined) {
    // an empty body (`"body": {}` from the JS SDK's JSON serializer) carries nothing to drop
    const empty = r.body === null || r.body === '';
    if (!ctx.content || empty) {
      if (!empty) ctx.droppedContent++;
      delete r.body;
    } else r.body = cleanValue(r.body, ctx);
  }
  if (r.eventName !== undefined) {
    const name = admitName(r.eventName, REGISTERED_EVENT_NAMES.has(r.eventName) ? 'registered' : 'free', '<event_name>', undefined, OTHER_VALUE, ctx);
    if (name === undefined) delete r.eventName;
    else r.eventName = name;
  }
  if (r.severityText !== undefined) {
    const text = admitName(r.severityText, isSeverityText(r.severityText) ? 'registered' : 'free', '<severity_text>', undefined, OTHER_VALUE, ctx);
    if (text === undefined) delete r.severityText;
    else r.severityText = text;
  }
  if (fp !== undefined) {
    r.attributes = { ...r.attributes, 'agent.skill.event.id': fp };
    ctx.stamped++;
  }
}

function admitTraceState<T extends { traceState?: string }>(o: T, ctx: Ctx): void {
  if (o.traceState === undefined || o.traceState === '') return;
  if (!ctx.content) {
    ctx.droppedContent++;
    delete o.traceState;
  } else o.traceState = cleanString(o.traceState, ctx);
}

function admitSpan(s: OtlpSpan, ctx: Ctx): void {
  s.attributes = admitAttributes(s.attributes, METADATA_ALLOWLIST, ctx);
  const { kind, metadataForm } = spanNameClass(s.name, s.attributes);
  // a redacted or folded span name keeps its operation, so the span keeps its kind
  s.name = admitName(s.name, kind, '<span_name>', metadataForm, metadataForm, ctx)!;
  admitTraceState(s, ctx);
  for (const e of s.events) {
    e.name = admitName(e.name, isRegisteredSpanEventName(e.name) ? 'registered' : 'free', '<span_event_name>', REDACTED_NAME, OTHER_VALUE, ctx)!;
    e.attributes = admitAttributes(e.attributes, METADATA_ALLOWLIST, ctx);
  }
  for (const l of s.links) {
    l.attributes = admitAttributes(l.attributes, METADATA_ALLOWLIST, ctx);
    admitTraceState(l, ctx);
  }
  if (s.status?.message !== undefined) {
    if (!ctx.content) {
      ctx.droppedContent++;
      delete s.status.message;
    } else s.status.message = cleanString(s.status.message, ctx);
  }
}

function admitMetric(m: OtlpMetric, ctx: Ctx): void {
  const dims = ctx.content ? METADATA_ALLOWLIST : METRIC_DIMENSIONS;
  if ('dataPoints' in m.data) {
    for (const p of m.data.dataPoints) p.attributes = admitAttributes(p.attributes, dims, ctx);
    return;
  }
  // exponential histograms and summaries are carried as wire objects: their point attributes go
  // through the same checks, one key-value at a time, and only what admission changed is re-encoded
  const raw = m.data.raw as { dataPoints?: { attributes?: WireKeyValue[] }[] } | undefined;
  for (const p of raw?.dataPoints ?? []) {
    if (p.attributes) p.attributes = admitWireAttributes(p.attributes, dims, ctx);
  }
}

interface WireKeyValue {
  key?: unknown;
  value?: unknown;
}

/** The decoder already applied the limits to these values; reading them again must not cut anything. */
const READ_AS_DECODED = { ...DEFAULT_OTLP_LIMITS, maxAttributes: Infinity, maxValueDepth: Infinity, maxStringLength: Infinity };

function admitWireAttributes(kvs: WireKeyValue[], allowed: ReadonlySet<string>, ctx: Ctx): WireKeyValue[] {
  const out: WireKeyValue[] = [];
  for (const kv of kvs) {
    if (typeof kv?.key !== 'string') {
      ctx.droppedContent++;
      continue;
    }
    const value = valueFromWire(kv.value, ctx.wireMode, READ_AS_DECODED, { dropped: 0 });
    const admitted = admitAttributes({ [kv.key]: value }, allowed, ctx);
    for (const [key, next] of Object.entries(admitted)) out.push(key === kv.key && next === value ? kv : { key, value: valueToWire(next, ctx.wireMode) });
  }
  return out;
}

/** A scope's name and version: library identifiers and version strings are metadata (names.ts); anything else is a free-form name. */
function admitScope(scope: { name: string; version?: string; attributes?: OtlpAttributes }, ctx: Ctx): void {
  const nameClass: NameClass = isForgeScopeName(scope.name) ? 'registered' : isScopeNameShape(scope.name) ? 'shaped' : 'free';
  scope.name = admitName(scope.name, nameClass, '<scope_name>', '', OTHER_VALUE, ctx)!;
  if (scope.version !== undefined && scope.version !== '') {
    const version = admitName(scope.version, isVersionString(scope.version) ? 'registered' : 'free', '<scope_version>', undefined, undefined, ctx);
    if (version === undefined) delete scope.version;
    else scope.version = version;
  }
  if (scope.attributes) scope.attributes = admitAttributes(scope.attributes, METADATA_ALLOWLIST, ctx);
}

const pointsOf = (m: OtlpMetric): number => ('dataPoints' in m.data ? m.data.dataPoints.length : 1);

const COUNT_KEYS = ['accepted', 'rejected', 'droppedContent', 'typeMismatches', 'unknownEnumValues', 'redactedNames', 'droppedLimits', 'foldedCardinality', 'sanitized', 'stamped'] as const;
const snapshot = (c: AdmissionCounts): AdmissionCounts => Object.fromEntries(COUNT_KEYS.map((k) => [k, c[k]])) as unknown as AdmissionCounts;

/** An event id the normalizer reads (a non-empty string); anything else is replaced by the fingerprint. */
const hasEventId = (r: OtlpLogRecord): boolean => {
  const id = r.attributes['agent.skill.event.id'];
  return typeof id === 'string' && id !== '';
};

/** Applies the admission policy to `req` in place and returns what it did, in total and per resource group. */
export function admitRequest(req: OtlpRequest, options: AdmissionOptions): AdmissionCounts & { perResource: AdmissionCounts[] } {
  const ctx: Ctx = {
    content: options.contentCollection,
    card: options.cardinality,
    maxKeyLength: options.maxKeyLength ?? DEFAULT_INGEST_LIMITS.maxAttributeKeyLength,
    wireMode: options.wireMode ?? 'proto',
    accepted: 0,
    rejected: 0,
    droppedContent: 0,
    typeMismatches: 0,
    unknownEnumValues: 0,
    redactedNames: 0,
    droppedLimits: 0,
    foldedCardinality: 0,
    sanitized: 0,
    stamped: 0,
  };
  let room = options.maxRecords;
  const perResource: AdmissionCounts[] = [];
  // batch-local, in record order, as the normalizer counts occurrences of identical records
  const occurrences = new Map<string, number>();
  for (const r of req.resources as ResourceGroup<unknown>[]) {
    const before = snapshot(ctx);
    const instance = r.resource.attributes['service.instance.id'];
    r.resource.attributes = admitAttributes(r.resource.attributes, METADATA_ALLOWLIST, ctx);
    for (const s of r.scopes) {
      admitScope(s.scope, ctx);
      const kept: unknown[] = [];
      for (const item of s.items) {
        const weight = req.signal === 'metrics' ? pointsOf(item as OtlpMetric) : 1;
        if (weight > room) {
          ctx.rejected += weight;
          continue;
        }
        room -= weight;
        ctx.accepted += weight;
        if (req.signal === 'logs') {
          const rec = item as OtlpLogRecord;
          admitLog(rec, ctx, hasEventId(rec) ? undefined : () => logFingerprint(rec, instance, occurrences));
        } else if (req.signal === 'traces') admitSpan(item as OtlpSpan, ctx);
        else admitMetric(item as OtlpMetric, ctx);
        kept.push(item);
      }
      if (kept.length !== s.items.length) s.items = kept;
    }
    const after = snapshot(ctx);
    for (const k of COUNT_KEYS) after[k] -= before[k];
    perResource.push(after);
  }
  return { ...snapshot(ctx), perResource };
}
