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

function attrs(kvs: unknown, ctx: Ctx, counter: DropCounter) {
  const before = counter.dropped;
  const out = attributesFromWire(arr(kvs), ctx.mode, ctx.limits, counter);
  ctx.totals.dropped += counter.dropped - before;
  return out;
}

function value(v: unknown, ctx: Ctx, counter: DropCounter) {
  const before = counter.dropped;
  const out = valueFromWire(v, ctx.mode, ctx.limits, counter);
  ctx.totals.dropped += counter.dropped - before;
  return out;
}

function resource(w: unknown, ctx: Ctx): OtlpResource {
  const c = { dropped: 0 };
  const r = (w ?? {}) as Wire;
  const out: OtlpResource = { attributes: attrs(r.attributes, ctx, c) };
  const dropped = (num(r.droppedAttributesCount) ?? 0) + c.dropped;
  if (dropped) out.droppedAttributesCount = dropped;
  return out;
}

function scope(w: unknown, ctx: Ctx): OtlpScope {
  const s = (w ?? {}) as Wire;
  const out: OtlpScope = { name: typeof s.name === 'string' ? s.name : '' };
  if (str(s.version)) out.version = s.version as string;
  const a = attrs(s.attributes, ctx, { dropped: 0 });
  if (Object.keys(a).length) out.attributes = a;
  return out;
}

function logRecord(w: Wire, ctx: Ctx): OtlpLogRecord {
  const c = { dropped: 0 };
  const rec: OtlpLogRecord = {
    timeUnixNano: nanosFromWire(w.timeUnixNano),
    observedTimeUnixNano: nanosFromWire(w.observedTimeUnixNano),
    attributes: attrs(w.attributes, ctx, c),
  };
  if (num(w.severityNumber)) rec.severityNumber = num(w.severityNumber);
  if (str(w.severityText)) rec.severityText = w.severityText as string;
  if (w.body !== undefined && w.body !== null) rec.body = value(w.body, ctx, c);
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

function span(w: Wire, ctx: Ctx): OtlpSpan | undefined {
  const traceId = idFromWire(w.traceId, 16);
  const spanId = idFromWire(w.spanId, 8);
  // a span without valid ids cannot be placed in any trace; it is dropped
  if (!traceId || !spanId) return undefined;
  const c = { dropped: 0 };
  const out: OtlpSpan = {
    traceId,
    spanId,
    name: typeof w.name === 'string' ? w.name : '',
    kind: num(w.kind) ?? 0,
    startTimeUnixNano: nanosFromWire(w.startTimeUnixNano),
    endTimeUnixNano: nanosFromWire(w.endTimeUnixNano),
    attributes: attrs(w.attributes, ctx, c),
    events: arr(w.events).map((e) => ({ timeUnixNano: nanosFromWire(e.timeUnixNano), name: String(e.name ?? ''), attributes: attrs(e.attributes, ctx, c) })),
    links: arr(w.links).flatMap((l) => {
      const t = optionalId(l.traceId, 16, ctx);
      const s = optionalId(l.spanId, 8, ctx);
      return t && s ? [{ traceId: t, spanId: s, attributes: attrs(l.attributes, ctx, c), ...(str(l.traceState) ? { traceState: l.traceState as string } : {}) }] : [];
    }),
  };
  const parent = optionalId(w.parentSpanId, 8, ctx);
  if (parent) out.parentSpanId = parent;
  if (str(w.traceState)) out.traceState = w.traceState as string;
  if (num(w.flags)) out.flags = num(w.flags);
  const st = w.status as Wire | undefined;
  if (st && (num(st.code) || str(st.message))) out.status = { code: num(st.code) ?? 0, ...(str(st.message) ? { message: st.message as string } : {}) };
  const dropped = (num(w.droppedAttributesCount) ?? 0) + c.dropped;
  if (dropped) out.droppedAttributesCount = dropped;
  return out;
}

function numberPoint(w: Wire, ctx: Ctx): OtlpNumberPoint {
  const p: OtlpNumberPoint = { attributes: attrs(w.attributes, ctx, { dropped: 0 }), timeUnixNano: nanosFromWire(w.timeUnixNano) };
  if (w.startTimeUnixNano !== undefined) p.startTimeUnixNano = nanosFromWire(w.startTimeUnixNano);
  if (w.asInt !== undefined && w.asInt !== null) {
    const v = int64FromWire(w.asInt);
    p.asInt = typeof v === 'bigint' ? v.toString() : v;
  } else if (w.asDouble !== undefined && w.asDouble !== null) p.asDouble = Number(w.asDouble);
  if (num(w.flags)) p.flags = num(w.flags);
  return p;
}

function histogramPoint(w: Wire, ctx: Ctx): OtlpHistogramPoint {
  const p: OtlpHistogramPoint = {
    attributes: attrs(w.attributes, ctx, { dropped: 0 }),
    timeUnixNano: nanosFromWire(w.timeUnixNano),
    count: Number(w.count ?? 0),
    bucketCounts: (Array.isArray(w.bucketCounts) ? w.bucketCounts : []).map(Number),
    explicitBounds: (Array.isArray(w.explicitBounds) ? w.explicitBounds : []).map(Number),
  };
  if (w.startTimeUnixNano !== undefined) p.startTimeUnixNano = nanosFromWire(w.startTimeUnixNano);
  for (const k of ['sum', 'min', 'max'] as const) if (w[k] !== undefined && w[k] !== null) p[k] = Number(w[k]);
  return p;
}

const temporality = (v: unknown): Temporality => (Number(v) === 1 ? 1 : Number(v) === 2 ? 2 : 0);

function metric(w: Wire, ctx: Ctx): OtlpMetric | undefined {
  let data: OtlpMetricData;
  if (w.sum) {
    const s = w.sum as Wire;
    data = { kind: 'sum', dataPoints: arr(s.dataPoints).map((p) => numberPoint(p, ctx)), aggregationTemporality: temporality(s.aggregationTemporality), isMonotonic: s.isMonotonic === true };
  } else if (w.gauge) data = { kind: 'gauge', dataPoints: arr((w.gauge as Wire).dataPoints).map((p) => numberPoint(p, ctx)) };
  else if (w.histogram) {
    const h = w.histogram as Wire;
    data = { kind: 'histogram', dataPoints: arr(h.dataPoints).map((p) => histogramPoint(p, ctx)), aggregationTemporality: temporality(h.aggregationTemporality) };
  } else if (w.exponentialHistogram) data = { kind: 'exponentialHistogram', raw: w.exponentialHistogram };
  else if (w.summary) data = { kind: 'summary', raw: w.summary };
  else return undefined;
  const m: OtlpMetric = { name: String(w.name ?? ''), data };
  if (str(w.description)) m.description = w.description as string;
  if (str(w.unit)) m.unit = w.unit as string;
  return m;
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
  const convert = (x: Wire): unknown => (signal === 'logs' ? logRecord(x, ctx) : signal === 'traces' ? span(x, ctx) : metric(x, ctx));
  let seen = 0;
  const max = signal === 'metrics' ? Infinity : (limits.maxItems ?? Infinity);
  const item = (x: Wire): unknown => {
    if (seen++ < max) return convert(x);
    totals.overLimit = (totals.overLimit ?? 0) + 1;
    return undefined;
  };
  const resources: ResourceGroup<unknown>[] = arr(w[rKey]).map((r) => ({
    resource: resource(r.resource, ctx),
    ...(str(r.schemaUrl) ? { schemaUrl: r.schemaUrl as string } : {}),
    scopes: arr(r[sKey]).map((s) => ({
      scope: scope(s.scope, ctx),
      ...(str(s.schemaUrl) ? { schemaUrl: s.schemaUrl as string } : {}),
      items: arr(s[iKey]).map(item).filter((x) => x !== undefined),
    })),
  }));
  return { signal, resources } as OtlpRequest;
}
