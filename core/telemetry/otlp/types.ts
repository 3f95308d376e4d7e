/**
 * The decoded, wire-format-independent shape of OTLP requests. Protobuf and OTLP/JSON decode to
 * the same objects: ids as lowercase hex, 64-bit nanosecond timestamps as decimal strings,
 * attributes as a flat key -> value map, enums as numbers.
 */

/** A decoded AnyValue. int64 values that do not fit a double exactly become bigints. */
export type OtlpValue = string | number | bigint | boolean | null | Uint8Array | OtlpValue[] | { [key: string]: OtlpValue };

export type OtlpAttributes = Record<string, OtlpValue>;

export interface OtlpResource {
  attributes: OtlpAttributes;
  droppedAttributesCount?: number;
}

export interface OtlpScope {
  name: string;
  version?: string;
  attributes?: OtlpAttributes;
}

export interface OtlpLogRecord {
  /** nanoseconds since the epoch as a decimal string; '0' when the source gave none */
  timeUnixNano: string;
  observedTimeUnixNano: string;
  severityNumber?: number;
  severityText?: string;
  body?: OtlpValue;
  attributes: OtlpAttributes;
  droppedAttributesCount?: number;
  flags?: number;
  traceId?: string;
  spanId?: string;
  eventName?: string;
}

export interface OtlpSpanEvent {
  timeUnixNano: string;
  name: string;
  attributes: OtlpAttributes;
}

export interface OtlpSpanLink {
  traceId: string;
  spanId: string;
  traceState?: string;
  attributes: OtlpAttributes;
  flags?: number;
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  traceState?: string;
  parentSpanId?: string;
  flags?: number;
  name: string;
  /** 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer */
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpAttributes;
  droppedAttributesCount?: number;
  events: OtlpSpanEvent[];
  links: OtlpSpanLink[];
  /** 0 unset, 1 ok, 2 error */
  status?: { code: number; message?: string };
}

export interface OtlpNumberPoint {
  attributes: OtlpAttributes;
  startTimeUnixNano?: string;
  timeUnixNano: string;
  asInt?: number | string;
  asDouble?: number;
  flags?: number;
}

export interface OtlpHistogramPoint {
  attributes: OtlpAttributes;
  startTimeUnixNano?: string;
  timeUnixNano: string;
  count: number;
  sum?: number;
  bucketCounts: number[];
  explicitBounds: number[];
  min?: number;
  max?: number;
  flags?: number;
}

/** Aggregation temporality: 1 = delta, 2 = cumulative. */
export type Temporality = 0 | 1 | 2;

export type OtlpMetricData =
  | { kind: 'gauge'; dataPoints: OtlpNumberPoint[] }
  | { kind: 'sum'; dataPoints: OtlpNumberPoint[]; aggregationTemporality: Temporality; isMonotonic: boolean }
  | { kind: 'histogram'; dataPoints: OtlpHistogramPoint[]; aggregationTemporality: Temporality }
  /** exponential histograms and summaries are carried through as their raw decoded objects */
  | { kind: 'exponentialHistogram' | 'summary'; raw: unknown };

export interface OtlpMetric {
  name: string;
  description?: string;
  unit?: string;
  data: OtlpMetricData;
}

export interface ScopeGroup<T> {
  scope: OtlpScope;
  schemaUrl?: string;
  items: T[];
}

export interface ResourceGroup<T> {
  resource: OtlpResource;
  schemaUrl?: string;
  scopes: ScopeGroup<T>[];
}

export type OtlpSignal = 'logs' | 'traces' | 'metrics';

export interface OtlpLogsRequest { signal: 'logs'; resources: ResourceGroup<OtlpLogRecord>[] }
export interface OtlpTracesRequest { signal: 'traces'; resources: ResourceGroup<OtlpSpan>[] }
export interface OtlpMetricsRequest { signal: 'metrics'; resources: ResourceGroup<OtlpMetric>[] }
export type OtlpRequest = OtlpLogsRequest | OtlpTracesRequest | OtlpMetricsRequest;

/** Number of records (log records, spans, metric data points) in a request. */
export function recordCount(req: OtlpRequest): number {
  let n = 0;
  for (const r of req.resources) {
    for (const s of r.scopes) {
      if (req.signal !== 'metrics') n += s.items.length;
      else for (const m of s.items as OtlpMetric[]) n += 'dataPoints' in m.data ? m.data.dataPoints.length : 1;
    }
  }
  return n;
}
