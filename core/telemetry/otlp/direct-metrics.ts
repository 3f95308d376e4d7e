import type { OtlpAttributes, OtlpHistogramPoint, OtlpMetric, OtlpMetricData, OtlpNumberPoint, Temporality } from './types.js';
import { attributesToWire } from './value.js';
import { expect, int64, keyValue, TWO32, Wire, type Ctx } from './direct-wire.js';

/**
 * The Metric message for the direct protobuf decoder (direct-decode.ts), in the shape of
 * from-wire.ts: gauges, sums and histograms as decoded points; exponential histograms and
 * summaries as the wire objects protobufjs `toObject` gives (64-bit integers as decimal strings),
 * which the hub only filters by attribute key and encodes again. Every attribute map, including
 * those inside the carried wire objects, goes through the limited KeyValue reader: a point
 * attribute nested thousands deep or with invalid UTF-8 costs that attribute, not the request.
 * Exemplars and metric metadata are not carried (as in from-wire.ts).
 */

type Raw = Record<string, unknown>;

/** An unsigned 64-bit varint as a decimal string (toObject's `longs: String`). */
function uint64String(w: Wire): string {
  const [lo, hi] = w.varint64();
  return hi === 0 ? String(lo) : hi < 0x200000 ? String(hi * TWO32 + lo) : ((BigInt(hi) << 32n) | BigInt(lo)).toString();
}

/** A fixed64 as a number (what from-wire.ts makes of counts: `Number` of the decimal string rounds the same way). */
function fixed64Number(w: Wire): number {
  const lo = w.fixed32();
  return w.fixed32() * TWO32 + lo;
}

/** A zigzag-encoded sint32. */
function sint32(w: Wire): number {
  const n = w.varint64()[0];
  return (n >>> 1) ^ -(n & 1);
}

/** A repeated scalar field, packed (wire type 2) or not (`single`: its own wire type). */
function repeated<T>(w: Wire, wt: number, single: number, what: string, read: (w: Wire) => T, into: T[]): void {
  if (wt === 2) {
    const packed = w.sub();
    while (packed.pos < packed.end) into.push(read(packed));
    return;
  }
  expect(wt, single, what);
  into.push(read(w));
}

function attributesInto(w: Wire, ctx: Ctx, into: OtlpAttributes, kept: { n: number }): void {
  const counter = { dropped: 0 };
  keyValue(w.sub(), ctx, 0, counter, into, kept);
  ctx.dropped += counter.dropped;
}

function numberPoint(w: Wire, ctx: Ctx): OtlpNumberPoint {
  const p: OtlpNumberPoint = { attributes: {}, timeUnixNano: '0' };
  const kept = { n: 0 };
  let value: { asInt: number | string } | { asDouble: number } | undefined;
  let flags = 0;
  while (w.pos < w.end) {
    const tag = w.tag();
    const wt = tag & 7;
    switch (tag >>> 3) {
      case 7: expect(wt, 2, 'attributes'); attributesInto(w, ctx, p.attributes, kept); break;
      case 2: expect(wt, 1, 'start_time_unix_nano'); p.startTimeUnixNano = w.nanos(); break;
      case 3: expect(wt, 1, 'time_unix_nano'); p.timeUnixNano = w.nanos(); break;
      case 4: expect(wt, 1, 'as_double'); value = { asDouble: w.double() }; break;
      case 6: {
        expect(wt, 1, 'as_int');
        const lo = w.fixed32();
        const v = int64(lo, w.fixed32());
        value = { asInt: typeof v === 'bigint' ? v.toString() : v };
        break;
      }
      case 8: expect(wt, 0, 'flags'); flags = w.varint(); break;
      default: w.skip(wt);
    }
  }
  // from-wire.ts reads as_int before as_double; one oneof holds only the last one sent anyway
  if (value) Object.assign(p, value);
  if (flags) p.flags = flags;
  return p;
}

function histogramPoint(w: Wire, ctx: Ctx): OtlpHistogramPoint {
  const p: OtlpHistogramPoint = { attributes: {}, timeUnixNano: '0', count: 0, bucketCounts: [], explicitBounds: [] };
  const kept = { n: 0 };
  while (w.pos < w.end) {
    const tag = w.tag();
    const wt = tag & 7;
    switch (tag >>> 3) {
      case 9: expect(wt, 2, 'attributes'); attributesInto(w, ctx, p.attributes, kept); break;
      case 2: expect(wt, 1, 'start_time_unix_nano'); p.startTimeUnixNano = w.nanos(); break;
      case 3: expect(wt, 1, 'time_unix_nano'); p.timeUnixNano = w.nanos(); break;
      case 4: expect(wt, 1, 'count'); p.count = fixed64Number(w); break;
      case 5: expect(wt, 1, 'sum'); p.sum = w.double(); break;
      case 6: repeated(w, wt, 1, 'bucket_counts', fixed64Number, p.bucketCounts); break;
      case 7: repeated(w, wt, 1, 'explicit_bounds', (x) => x.double(), p.explicitBounds); break;
      case 11: expect(wt, 1, 'min'); p.min = w.double(); break;
      case 12: expect(wt, 1, 'max'); p.max = w.double(); break;
      default: w.skip(wt); // exemplars, flags: not carried
    }
  }
  return p;
}

/** The wire form of a limited attribute map, as the carried exponential histogram and summary points hold it. */
const wireAttributes = (attrs: OtlpAttributes) => attributesToWire(attrs, 'proto');

function buckets(w: Wire): Raw {
  const out: Raw = {};
  const counts: string[] = [];
  while (w.pos < w.end) {
    const tag = w.tag();
    const wt = tag & 7;
    if (tag >>> 3 === 1) {
      expect(wt, 0, 'offset');
      out.offset = sint32(w);
    } else if (tag >>> 3 === 2) repeated(w, wt, 0, 'bucket_counts', uint64String, counts);
    else w.skip(wt);
  }
  if (counts.length) out.bucketCounts = counts;
  return out;
}

function exponentialPoint(w: Wire, ctx: Ctx): Raw {
  const p: Raw = {};
  const attrs: OtlpAttributes = {};
  const kept = { n: 0 };
  while (w.pos < w.end) {
    const tag = w.tag();
    const wt = tag & 7;
    switch (tag >>> 3) {
      case 1: expect(wt, 2, 'attributes'); attributesInto(w, ctx, attrs, kept); break;
      case 2: expect(wt, 1, 'start_time_unix_nano'); p.startTimeUnixNano = w.nanos(); break;
      case 3: expect(wt, 1, 'time_unix_nano'); p.timeUnixNano = w.nanos(); break;
      case 4: expect(wt, 1, 'count'); p.count = w.nanos(); break;
      case 5: expect(wt, 1, 'sum'); p.sum = w.double(); break;
      case 6: expect(wt, 0, 'scale'); p.scale = sint32(w); break;
      case 7: expect(wt, 1, 'zero_count'); p.zeroCount = w.nanos(); break;
      case 8: expect(wt, 2, 'positive'); p.positive = buckets(w.sub()); break;
      case 9: expect(wt, 2, 'negative'); p.negative = buckets(w.sub()); break;
      case 10: expect(wt, 0, 'flags'); p.flags = w.varint(); break;
      case 12: expect(wt, 1, 'min'); p.min = w.double(); break;
      case 13: expect(wt, 1, 'max'); p.max = w.double(); break;
      case 14: expect(wt, 1, 'zero_threshold'); p.zeroThreshold = w.double(); break;
      default: w.skip(wt); // exemplars: not carried
    }
  }
  if (kept.n) p.attributes = wireAttributes(attrs);
  return p;
}

function quantile(w: Wire): Raw {
  const q: Raw = {};
  while (w.pos < w.end) {
    const tag = w.tag();
    const wt = tag & 7;
    if (tag >>> 3 === 1) {
      expect(wt, 1, 'quantile');
      q.quantile = w.double();
    } else if (tag >>> 3 === 2) {
      expect(wt, 1, 'value');
      q.value = w.double();
    } else w.skip(wt);
  }
  return q;
}

function summaryPoint(w: Wire, ctx: Ctx): Raw {
  const p: Raw = {};
  const attrs: OtlpAttributes = {};
  const kept = { n: 0 };
  const quantiles: Raw[] = [];
  while (w.pos < w.end) {
    const tag = w.tag();
    const wt = tag & 7;
    switch (tag >>> 3) {
      case 7: expect(wt, 2, 'attributes'); attributesInto(w, ctx, attrs, kept); break;
      case 2: expect(wt, 1, 'start_time_unix_nano'); p.startTimeUnixNano = w.nanos(); break;
      case 3: expect(wt, 1, 'time_unix_nano'); p.timeUnixNano = w.nanos(); break;
      case 4: expect(wt, 1, 'count'); p.count = w.nanos(); break;
      case 5: expect(wt, 1, 'sum'); p.sum = w.double(); break;
      case 6: expect(wt, 2, 'quantile_values'); quantiles.push(quantile(w.sub())); break;
      case 8: expect(wt, 0, 'flags'); p.flags = w.varint(); break;
      default: w.skip(wt);
    }
  }
  if (kept.n) p.attributes = wireAttributes(attrs);
  if (quantiles.length) p.quantileValues = quantiles;
  return p;
}

const temporality = (n: number): Temporality => (n === 1 ? 1 : n === 2 ? 2 : 0);

/** Gauge, Sum, Histogram, ExponentialHistogram or Summary: data points (field 1) plus the kind's own fields. */
function metricData(w: Wire, kind: OtlpMetricData['kind'], ctx: Ctx): OtlpMetricData {
  const points: unknown[] = [];
  let aggregation = 0;
  let monotonic = false;
  while (w.pos < w.end) {
    const tag = w.tag();
    const wt = tag & 7;
    const field = tag >>> 3;
    if (field === 1) {
      expect(wt, 2, 'data_points');
      const sub = w.sub();
      points.push(kind === 'gauge' || kind === 'sum' ? numberPoint(sub, ctx) : kind === 'histogram' ? histogramPoint(sub, ctx) : kind === 'summary' ? summaryPoint(sub, ctx) : exponentialPoint(sub, ctx));
    } else if (field === 2 && kind !== 'gauge' && kind !== 'summary') {
      expect(wt, 0, 'aggregation_temporality');
      aggregation = w.varint64()[0] | 0;
    } else if (field === 3 && kind === 'sum') {
      expect(wt, 0, 'is_monotonic');
      monotonic = w.varint64()[0] !== 0;
    } else w.skip(wt);
  }
  switch (kind) {
    case 'gauge': return { kind, dataPoints: points as OtlpNumberPoint[] };
    case 'sum': return { kind, dataPoints: points as OtlpNumberPoint[], aggregationTemporality: temporality(aggregation), isMonotonic: monotonic };
    case 'histogram': return { kind, dataPoints: points as OtlpHistogramPoint[], aggregationTemporality: temporality(aggregation) };
    default: {
      const raw: Raw = {};
      if (points.length) raw.dataPoints = points;
      if (aggregation) raw.aggregationTemporality = aggregation;
      return { kind, raw };
    }
  }
}

const DATA_FIELDS: Record<number, OtlpMetricData['kind']> = { 5: 'gauge', 7: 'sum', 9: 'histogram', 10: 'exponentialHistogram', 11: 'summary' };

/** A Metric message; undefined when it carries no data (from-wire.ts drops such a metric too). */
export function metric(w: Wire, ctx: Ctx): OtlpMetric | undefined {
  let name = '';
  let description = '';
  let unit = '';
  let data: OtlpMetricData | undefined;
  while (w.pos < w.end) {
    const tag = w.tag();
    const wt = tag & 7;
    const field = tag >>> 3;
    const kind = DATA_FIELDS[field];
    if (kind) {
      expect(wt, 2, kind);
      data = metricData(w.sub(), kind, ctx);
    } else if (field === 1) {
      expect(wt, 2, 'name');
      name = w.string();
    } else if (field === 2) {
      expect(wt, 2, 'description');
      description = w.string();
    } else if (field === 3) {
      expect(wt, 2, 'unit');
      unit = w.string();
    } else w.skip(wt); // metadata: not carried
  }
  if (!data) return undefined;
  const m: OtlpMetric = { name, data };
  if (description) m.description = description;
  if (unit) m.unit = unit;
  return m;
}
