import type {
  OtlpAttributes, OtlpLogRecord, OtlpMetric, OtlpRequest, OtlpSpan, OtlpValue, ResourceGroup,
} from '../../core/telemetry/otlp/index.js';
import { isIdentityAttribute, METADATA_ALLOWLIST, METRIC_DIMENSIONS } from './allowlist.js';
import type { CardinalityScope } from './cardinality.js';

/**
 * Admission: what of a decoded request the hub keeps. Pure over its inputs (the cardinality
 * scope is the only state); mutates the request in place for speed and reports what it changed.
 *
 * - records past `maxRecords` are rejected (partial_success), the rest kept in order;
 * - without content opt-in, attributes outside the metadata-only allowlist, log bodies and span
 *   status messages are dropped (metric points keep only the bounded metric dimensions);
 * - non-identity string values past the distinct-values limit fold into `__other__`;
 * - strings that are not well-formed UTF-16 (lone surrogates from JSON escapes) are repaired
 *   with U+FFFD, so nothing malformed reaches storage keys.
 */

export interface AdmissionCounts {
  accepted: number;
  rejected: number;
  /** attributes, bodies and messages dropped by the metadata-only policy */
  droppedContent: number;
  /** values folded into `__other__` by the cardinality limit */
  foldedCardinality: number;
  /** strings repaired with U+FFFD */
  sanitized: number;
}

export interface AdmissionOptions {
  contentCollection: boolean;
  maxRecords: number;
  cardinality: CardinalityScope;
}

interface Ctx extends AdmissionCounts {
  content: boolean;
  card: CardinalityScope;
}

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

/** The admitted form of one attribute map (a new object only when something changed). */
function admitAttributes(attrs: OtlpAttributes, allowed: ReadonlySet<string>, ctx: Ctx): OtlpAttributes {
  let out: OtlpAttributes | undefined;
  const keys = Object.keys(attrs);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const v = attrs[key];
    let next: OtlpValue = v;
    let nextKey = key;
    if (!allowed.has(key)) {
      if (!ctx.content) {
        ctx.droppedContent++;
        out ??= copyUpTo(attrs, keys, i);
        continue;
      }
      nextKey = cleanString(key, ctx);
    }
    if (typeof v === 'string') {
      next = cleanString(v, ctx);
      if (!isIdentityAttribute(key)) {
        const admitted = ctx.card.admit(key, next);
        if (admitted !== next) ctx.foldedCardinality++;
        next = admitted;
      }
    } else if (v !== null && typeof v === 'object') next = cleanValue(v, ctx);
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
 * Log record attributes: the metadata allowlist plus the deprecated `event.name` attribute, which
 * older SDKs send instead of the EventName field. It is the event's name (metadata, not content),
 * so it is admitted for every account and the normalizer reads it (event.ts logEvent).
 */
const LOG_ALLOWLIST: ReadonlySet<string> = new Set([...METADATA_ALLOWLIST, 'event.name']);

function admitLog(r: OtlpLogRecord, ctx: Ctx): void {
  r.attributes = admitAttributes(r.attributes, LOG_ALLOWLIST, ctx);
  if (r.body !== undefined) {
    // an empty body (`"body": {}` from the JS SDK's JSON serializer) carries nothing to drop
    const empty = r.body === null || r.body === '';
    if (!ctx.content || empty) {
      if (!empty) ctx.droppedContent++;
      delete r.body;
    } else r.body = cleanValue(r.body, ctx);
  }
  if (r.eventName !== undefined) r.eventName = ctx.card.admit('<event_name>', cleanString(r.eventName, ctx));
  if (r.severityText !== undefined) r.severityText = ctx.card.admit('<severity_text>', cleanString(r.severityText, ctx));
}

function admitSpan(s: OtlpSpan, ctx: Ctx): void {
  s.attributes = admitAttributes(s.attributes, METADATA_ALLOWLIST, ctx);
  s.name = cleanString(s.name, ctx);
  for (const e of s.events) {
    e.name = cleanString(e.name, ctx);
    e.attributes = admitAttributes(e.attributes, METADATA_ALLOWLIST, ctx);
  }
  for (const l of s.links) l.attributes = admitAttributes(l.attributes, METADATA_ALLOWLIST, ctx);
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
  // exponential histograms and summaries are carried as wire objects: filter their point attributes by key
  const raw = m.data.raw as { dataPoints?: { attributes?: { key?: unknown }[] }[] } | undefined;
  for (const p of raw?.dataPoints ?? []) {
    const before = p.attributes?.length ?? 0;
    p.attributes = (p.attributes ?? []).filter((kv) => typeof kv.key === 'string' && dims.has(kv.key));
    ctx.droppedContent += before - p.attributes.length;
  }
}

const pointsOf = (m: OtlpMetric): number => ('dataPoints' in m.data ? m.data.dataPoints.length : 1);

const COUNT_KEYS = ['accepted', 'rejected', 'droppedContent', 'foldedCardinality', 'sanitized'] as const;
const snapshot = (c: AdmissionCounts): AdmissionCounts => ({ accepted: c.accepted, rejected: c.rejected, droppedContent: c.droppedContent, foldedCardinality: c.foldedCardinality, sanitized: c.sanitized });

/** Applies the admission policy to `req` in place and returns what it did, in total and per resource group. */
export function admitRequest(req: OtlpRequest, options: AdmissionOptions): AdmissionCounts & { perResource: AdmissionCounts[] } {
  const ctx: Ctx = {
    content: options.contentCollection,
    card: options.cardinality,
    accepted: 0,
    rejected: 0,
    droppedContent: 0,
    foldedCardinality: 0,
    sanitized: 0,
  };
  let room = options.maxRecords;
  const perResource: AdmissionCounts[] = [];
  for (const r of req.resources as ResourceGroup<unknown>[]) {
    const before = snapshot(ctx);
    r.resource.attributes = admitAttributes(r.resource.attributes, METADATA_ALLOWLIST, ctx);
    for (const s of r.scopes) {
      s.scope.name = cleanString(s.scope.name, ctx);
      if (s.scope.attributes) s.scope.attributes = admitAttributes(s.scope.attributes, METADATA_ALLOWLIST, ctx);
      const kept: unknown[] = [];
      for (const item of s.items) {
        const weight = req.signal === 'metrics' ? pointsOf(item as OtlpMetric) : 1;
        if (weight > room) {
          ctx.rejected += weight;
          continue;
        }
        room -= weight;
        ctx.accepted += weight;
        if (req.signal === 'logs') admitLog(item as OtlpLogRecord, ctx);
        else if (req.signal === 'traces') admitSpan(item as OtlpSpan, ctx);
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
