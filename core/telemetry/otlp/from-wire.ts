import type { OtlpLimits } from './limits.js';
import type {
  OtlpHistogramPoint, OtlpLogRecord, OtlpMetric, OtlpMetricData, OtlpNumberPoint, OtlpRequest, OtlpResource, OtlpScope,
  OtlpSignal, OtlpSpan, ResourceGroup, Temporality,
} from './types.js';
import { attributesFromWire, idFromWire, int64FromWire, nanosFromWire, valueFromWire, type DropCounter, type WireMode } from './value.js';

/**
 * Wire object (protobufjs `toObject` output or parsed OTLP/JSON) -> decoded request. Pure; limits
 * are applied per item and what they drop is added to the item's droppedAttributesCount.
 */

type Wire = Record<string, unknown>;
/** The objects of a repeated field; a JSON `null`, number or string in a list of messages is no message and is skipped. */
const arr = (v: unknown): Wire[] => (Array.isArray(v) ? (v.filter((x) => typeof x === 'object' && x !== null && !Array.isArray(x)) as Wire[]) : []);

/**
 * OTLP/JSON with a field of the wrong JSON type: a repeated field that is not a list, a message
 * (an AnyValue included) that is not an object, a 64-bit time that is not a decimal integer. The
 * proto3 JSON mapping makes that a parse error, so the request is undecodable (400), never read
 * as if the field held its default. A TypeError, which the hub's decoder answers with a 400.
 */
export class OtlpJsonTypeError extends TypeError {
  override readonly name = 'OtlpJsonTypeError';
}

function jsonTypeOf(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 20 ? `${v.slice(0, 20)}...` : v)}`;
  return `the ${typeof v} ${String(v).slice(0, 20)}`;
}

const wrongType = (path: string, expected: string, v: unknown) => new OtlpJsonTypeError(`${path} must be ${expected}, not ${jsonTypeOf(v)}`);

/** A repeated message field: in OTLP/JSON a list (or null/absent); its non-object elements are skipped (`arr`). */
function list(v: unknown, ctx: Ctx, path: string): Wire[] {
  if (ctx.mode === 'json' && v !== undefined && v !== null && !Array.isArray(v)) throw wrongType(path, 'a list', v);
  return arr(v);
}

/** A message field: in OTLP/JSON an object (or null/absent, the empty message). */
function message(v: unknown, ctx: Ctx, path: string): Wire {
  if (ctx.mode === 'json' && v !== undefined && v !== null && (typeof v !== 'object' || Array.isArray(v))) throw wrongType(path, 'an object', v);
  return (v ?? {}) as Wire;
}

/** A fixed64 time: in OTLP/JSON a decimal string or a non-negative integer (or null/absent, 0). */
function nanos(v: unknown, ctx: Ctx, path: string): string {
  if (ctx.mode === 'json' && v !== undefined && v !== null && !(typeof v === 'string' ? /^\d+$/.test(v) : Number.isInteger(v) && (v as number) >= 0)) {
    throw wrongType(path, 'nanoseconds as a decimal string or integer', v);
  }
  return nanosFromWire(v);
}

/**
 * An AnyValue (a log body, an attribute's value): in OTLP/JSON an object, as are the values of its
 * arrays and lists, down to the depth the limits keep (deeper values are cut anyway).
 */
function checkAnyValue(v: unknown, ctx: Ctx, path: string, depth = 0): void {
  if (ctx.mode !== 'json' || v === undefined || v === null) return;
  const w = message(v, ctx, path);
  if (depth >= ctx.limits.maxValueDepth) return;
  if (w.arrayValue !== undefined && w.arrayValue !== null) {
    const values = message(w.arrayValue, ctx, `${path}.arrayValue`).values;
    if (values !== undefined && values !== null && !Array.isArray(values)) throw wrongType(`${path}.arrayValue.values`, 'a list', values);
    for (const x of (values as unknown[] | undefined) ?? []) {
      if (x === null || typeof x !== 'object' || Array.isArray(x)) throw wrongType(`${path}.arrayValue.values[]`, 'an object', x);
      checkAnyValue(x, ctx, `${path}.arrayValue.values[]`, depth + 1);
    }
  }
  if (w.kvlistValue !== undefined && w.kvlistValue !== null) {
    const kvs = list(message(w.kvlistValue, ctx, `${path}.kvlistValue`).values, ctx, `${path}.kvlistValue.values`);
    for (const kv of kvs) checkAnyValue(kv.value, ctx, `${path}.kvlistValue.values[].value`, depth + 1);
  }
}
const num = (v: unknown): number | undefined => (v === undefined || v === null ? undefined : Number(v));
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

interface Ctx {
  mode: WireMode;
  limits: OtlpLimits;
  /** everything the limits removed in the whole request */
  totals: WireTotals;
}

/** What converting a whole request left out: values cut by the limits, items after `limits.maxItems`, malformed optional ids. */
export interface WireTotals extends DropCounter {
  overLimit?: number;
  /** malformed optional ids dropped from kept items (see `optionalId`) */
  malformedIds?: number;
}

/** A present id that is not one: bytes of the wrong length, or a string that is not hex of the right length. */
function malformedId(v: unknown, bytes: number): boolean {
  if (v instanceof Uint8Array) return v.length > 0 && v.length !== bytes;
  if (typeof v === 'string') return v !== '' && !(v.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(v));
  return v !== undefined && v !== null;
}

/**
 * An optional id of a kept item (a log record's trace and span id, a parent span id, a link's
 * ids): absent, empty and all-zero ids mean "none"; a malformed one is dropped and counted.
 */
function optionalId(v: unknown, bytes: number, ctx: Ctx): string | undefined {
  const id = idFromWire(v, bytes);
  if (id === undefined && malformedId(v, bytes)) noteMalformedId(ctx);
  return id;
}

const noteMalformedId = (ctx: Ctx) => {
  ctx.totals.malformedIds = (ctx.totals.malformedIds ?? 0) + 1;
};

function attrs(kvs: unknown, ctx: Ctx, counter: DropCounter, path: string) {
  const before = counter.dropped;
  const list_ = list(kvs, ctx, `${path}.attributes`);
  if (ctx.mode === 'json') for (const kv of list_) checkAnyValue(kv.value, ctx, `${path}.attributes[].value`);
  const out = attributesFromWire(list_, ctx.mode, ctx.limits, counter);
  ctx.totals.dropped += counter.dropped - before;
  return out;
}

function value(v: unknown, ctx: Ctx, counter: DropCounter, path: string) {
  checkAnyValue(v, ctx, path);
  const before = counter.dropped;
  const out = valueFromWire(v, ctx.mode, ctx.limits, counter);
  ctx.totals.dropped += counter.dropped - before;
  return out;
}

function resource(w: unknown, ctx: Ctx, path: string): OtlpResource {
  const c = { dropped: 0 };
  const r = message(w, ctx, path);
  const out: OtlpResource = { attributes: attrs(r.attributes, ctx, c, path) };
  const dropped = (num(r.droppedAttributesCount) ?? 0) + c.dropped;
  if (dropped) out.droppedAttributesCount = dropped;
  return out;
}

function scope(w: unknown, ctx: Ctx, path: string): OtlpScope {
  const s = message(w, ctx, path);
  const out: OtlpScope = { name: typeof s.name === 'string' ? s.name : '' };
  if (str(s.version)) out.version = s.version as string;
  const a = attrs(s.attributes, ctx, { dropped: 0 }, path);
  if (Object.keys(a).length) out.attributes = a;
  return out;
}

function logRecord(w: Wire, ctx: Ctx, path: string): OtlpLogRecord {
  const c = { dropped: 0 };
  const rec: OtlpLogRecord = {
    timeUnixNano: nanos(w.timeUnixNano, ctx, `${path}.timeUnixNano`),
    observedTimeUnixNano: nanos(w.observedTimeUnixNano, ctx, `${path}.observedTimeUnixNano`),
    attributes: attrs(w.attributes, ctx, c, path),
  };
  if (num(w.severityNumber)) rec.severityNumber = num(w.severityNumber);
  if (str(w.severityText)) rec.severityText = w.severityText as string;
  if (w.body !== undefined && w.body !== null) rec.body = value(w.body, ctx, c, `${path}.body`);
  if (num(w.flags)) rec.flags = num(w.flags);
  const traceId = optionalId(w.traceId, 16, ctx);
  const spanId = optionalId(w.spanId, 8, ctx);
  // a span id means something only within its trace: without a valid trace id neither is kept
  if (traceId) {
    rec.traceId = traceId;
    if (spanId) rec.spanId = spanId;
  } else if (spanId) noteMalformedId(ctx);
  if (str(w.eventName)) rec.eventName = w.eventName as string;
  const dropped = (num(w.droppedAttributesCount) ?? 0) + c.dropped;
  if (dropped) rec.droppedAttributesCount = dropped;
  return rec;
}

function span(w: Wire, ctx: Ctx, path: string): OtlpSpan | undefined {
  // the types are checked before the ids: a span of the wrong shape makes the request undecodable, even one without ids
  const events = list(w.events, ctx, `${path}.events`);
  const links = list(w.links, ctx, `${path}.links`);
  const st = message(w.status, ctx, `${path}.status`);
  const start = nanos(w.startTimeUnixNano, ctx, `${path}.startTimeUnixNano`);
  const end = nanos(w.endTimeUnixNano, ctx, `${path}.endTimeUnixNano`);
  const traceId = idFromWire(w.traceId, 16);
  const spanId = idFromWire(w.spanId, 8);
  // a span without valid ids cannot be placed in any trace; it is dropped
  if (!traceId || !spanId) {
    if (ctx.mode === 'json') for (const kv of list(w.attributes, ctx, `${path}.attributes`)) checkAnyValue(kv.value, ctx, `${path}.attributes[].value`);
    return undefined;
  }
  const c = { dropped: 0 };
  const out: OtlpSpan = {
    traceId,
    spanId,
    name: typeof w.name === 'string' ? w.name : '',
    kind: num(w.kind) ?? 0,
    startTimeUnixNano: start,
    endTimeUnixNano: end,
    attributes: attrs(w.attributes, ctx, c, path),
    events: events.map((e) => ({ timeUnixNano: nanos(e.timeUnixNano, ctx, `${path}.events[].timeUnixNano`), name: String(e.name ?? ''), attributes: attrs(e.attributes, ctx, c, `${path}.events[]`) })),
    links: links.flatMap((l) => {
      const t = optionalId(l.traceId, 16, ctx);
      const s = optionalId(l.spanId, 8, ctx);
      return t && s ? [{ traceId: t, spanId: s, attributes: attrs(l.attributes, ctx, c, `${path}.links[]`), ...(str(l.traceState) ? { traceState: l.traceState as string } : {}) }] : [];
    }),
  };
  const parent = optionalId(w.parentSpanId, 8, ctx);
  if (parent) out.parentSpanId = parent;
  if (str(w.traceState)) out.traceState = w.traceState as string;
  if (num(w.flags)) out.flags = num(w.flags);
  if (num(st.code) || str(st.message)) out.status = { code: num(st.code) ?? 0, ...(str(st.message) ? { message: st.message as string } : {}) };
  const dropped = (num(w.droppedAttributesCount) ?? 0) + c.dropped;
  if (dropped) out.droppedAttributesCount = dropped;
  return out;
}

function numberPoint(w: Wire, ctx: Ctx, path: string): OtlpNumberPoint {
  const p: OtlpNumberPoint = { attributes: attrs(w.attributes, ctx, { dropped: 0 }, path), timeUnixNano: nanos(w.timeUnixNano, ctx, `${path}.timeUnixNano`) };
  if (w.startTimeUnixNano !== undefined) p.startTimeUnixNano = nanos(w.startTimeUnixNano, ctx, `${path}.startTimeUnixNano`);
  if (w.asInt !== undefined && w.asInt !== null) {
    const v = int64FromWire(w.asInt);
    p.asInt = typeof v === 'bigint' ? v.toString() : v;
  } else if (w.asDouble !== undefined && w.asDouble !== null) p.asDouble = Number(w.asDouble);
  if (num(w.flags)) p.flags = num(w.flags);
  return p;
}

function histogramPoint(w: Wire, ctx: Ctx, path: string): OtlpHistogramPoint {
  const p: OtlpHistogramPoint = {
    attributes: attrs(w.attributes, ctx, { dropped: 0 }, path),
    timeUnixNano: nanos(w.timeUnixNano, ctx, `${path}.timeUnixNano`),
    count: Number(w.count ?? 0),
    bucketCounts: (Array.isArray(w.bucketCounts) ? w.bucketCounts : []).map(Number),
    explicitBounds: (Array.isArray(w.explicitBounds) ? w.explicitBounds : []).map(Number),
  };
  if (w.startTimeUnixNano !== undefined) p.startTimeUnixNano = nanos(w.startTimeUnixNano, ctx, `${path}.startTimeUnixNano`);
  for (const k of ['sum', 'min', 'max'] as const) if (w[k] !== undefined && w[k] !== null) p[k] = Number(w[k]);
  return p;
}

const temporality = (v: unknown): Temporality => (Number(v) === 1 ? 1 : Number(v) === 2 ? 2 : 0);

function metric(w: Wire, ctx: Ctx, path: string): OtlpMetric | undefined {
  let data: OtlpMetricData;
  // a data field of the wrong type is an error, not "no data" (a metric without data is dropped)
  for (const k of ['sum', 'gauge', 'histogram', 'exponentialHistogram', 'summary']) if (w[k] !== undefined) message(w[k], ctx, `${path}.${k}`);
  const points = (d: unknown, kind: string) => list((d as Wire).dataPoints, ctx, `${path}.${kind}.dataPoints`);
  if (w.sum) {
    const s = w.sum as Wire;
    data = { kind: 'sum', dataPoints: points(s, 'sum').map((p) => numberPoint(p, ctx, `${path}.sum.dataPoints[]`)), aggregationTemporality: temporality(s.aggregationTemporality), isMonotonic: s.isMonotonic === true };
  } else if (w.gauge) data = { kind: 'gauge', dataPoints: points(w.gauge, 'gauge').map((p) => numberPoint(p, ctx, `${path}.gauge.dataPoints[]`)) };
  else if (w.histogram) {
    const h = w.histogram as Wire;
    data = { kind: 'histogram', dataPoints: points(h, 'histogram').map((p) => histogramPoint(p, ctx, `${path}.histogram.dataPoints[]`)), aggregationTemporality: temporality(h.aggregationTemporality) };
  } else if (w.exponentialHistogram) {
    checkRawPoints(w.exponentialHistogram as Wire, ctx, `${path}.exponentialHistogram`);
    data = { kind: 'exponentialHistogram', raw: w.exponentialHistogram };
  } else if (w.summary) {
    checkRawPoints(w.summary as Wire, ctx, `${path}.summary`);
    data = { kind: 'summary', raw: w.summary };
  } else return undefined;
  const m: OtlpMetric = { name: String(w.name ?? ''), data };
  if (str(w.description)) m.description = w.description as string;
  if (str(w.unit)) m.unit = w.unit as string;
  return m;
}

/** Exponential histograms and summaries are carried as wire objects: their points' lists, times and attribute values are checked all the same. */
function checkRawPoints(d: Wire, ctx: Ctx, path: string): void {
  if (ctx.mode !== 'json') return;
  for (const p of list(d.dataPoints, ctx, `${path}.dataPoints`)) {
    nanos(p.timeUnixNano, ctx, `${path}.dataPoints[].timeUnixNano`);
    nanos(p.startTimeUnixNano, ctx, `${path}.dataPoints[].startTimeUnixNano`);
    for (const kv of list(p.attributes, ctx, `${path}.dataPoints[].attributes`)) checkAnyValue(kv.value, ctx, `${path}.dataPoints[].attributes[].value`);
  }
}

const LISTS = {
  logs: ['resourceLogs', 'scopeLogs', 'logRecords'],
  traces: ['resourceSpans', 'scopeSpans', 'spans'],
  metrics: ['resourceMetrics', 'scopeMetrics', 'metrics'],
} as const;

/**
 * Converts an Export<Signal>ServiceRequest wire object into the decoded request shape;
 * `totals.dropped` (when given) receives the number of attributes and values the limits removed.
 */
export function requestFromWire(signal: OtlpSignal, w: Wire, mode: WireMode, limits: OtlpLimits, totals: WireTotals = { dropped: 0 }): OtlpRequest {
  const ctx: Ctx = { mode, limits, totals };
  const [rKey, sKey, iKey] = LISTS[signal];
  const [rPath, sPath, iPath] = [rKey, `${rKey}[].${sKey}`, `${rKey}[].${sKey}[].${iKey}`];
  const convert = (x: Wire): unknown => (signal === 'logs' ? logRecord(x, ctx, `${iPath}[]`) : signal === 'traces' ? span(x, ctx, `${iPath}[]`) : metric(x, ctx, `${iPath}[]`));
  let seen = 0;
  const max = signal === 'metrics' ? Infinity : (limits.maxItems ?? Infinity);
  const item = (x: Wire): unknown => {
    if (seen++ < max) return convert(x);
    totals.overLimit = (totals.overLimit ?? 0) + 1;
    return undefined;
  };
  const resources: ResourceGroup<unknown>[] = list(w[rKey], ctx, rPath).map((r) => ({
    resource: resource(r.resource, ctx, `${rPath}[].resource`),
    ...(str(r.schemaUrl) ? { schemaUrl: r.schemaUrl as string } : {}),
    scopes: list(r[sKey], ctx, sPath).map((s) => ({
      scope: scope(s.scope, ctx, `${sPath}[].scope`),
      ...(str(s.schemaUrl) ? { schemaUrl: s.schemaUrl as string } : {}),
      items: list(s[iKey], ctx, iPath).map(item).filter((x) => x !== undefined),
    })),
  }));
  return { signal, resources } as OtlpRequest;
}
