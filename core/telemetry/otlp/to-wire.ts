import type { OtlpHistogramPoint, OtlpLogRecord, OtlpMetric, OtlpNumberPoint, OtlpRequest, OtlpResource, OtlpScope, OtlpSpan } from './types.js';
import { attributesToWire, idToWire, valueToWire, type NumberKind, type WireMode } from './value.js';

/** Decoded request -> wire object (OTLP/JSON object, or the input of protobufjs `fromObject`). Pure. */

type Wire = Record<string, unknown>;
/** Number kind of an attribute key (from the semconv registry); unknown keys: integers encode as int. */
export type KindOf = (key: string) => NumberKind | undefined;

function compact(w: Wire): Wire {
  for (const k of Object.keys(w)) if (w[k] === undefined) delete w[k];
  return w;
}

function resourceWire(r: OtlpResource, mode: WireMode, kindOf?: KindOf): Wire {
  return compact({ attributes: attributesToWire(r.attributes, mode, kindOf), droppedAttributesCount: r.droppedAttributesCount });
}

function scopeWire(s: OtlpScope, mode: WireMode): Wire {
  return compact({ name: s.name, version: s.version, attributes: s.attributes ? attributesToWire(s.attributes, mode) : undefined });
}

function logWire(r: OtlpLogRecord, mode: WireMode, kindOf?: KindOf): Wire {
  return compact({
    timeUnixNano: r.timeUnixNano,
    observedTimeUnixNano: r.observedTimeUnixNano,
    severityNumber: r.severityNumber,
    severityText: r.severityText,
    body: r.body === undefined ? undefined : valueToWire(r.body, mode),
    attributes: attributesToWire(r.attributes, mode, kindOf),
    droppedAttributesCount: r.droppedAttributesCount,
    flags: r.flags,
    traceId: r.traceId ? idToWire(r.traceId, mode) : undefined,
    spanId: r.spanId ? idToWire(r.spanId, mode) : undefined,
    eventName: r.eventName,
  });
}

function spanWire(s: OtlpSpan, mode: WireMode, kindOf?: KindOf): Wire {
  return compact({
    traceId: idToWire(s.traceId, mode),
    spanId: idToWire(s.spanId, mode),
    traceState: s.traceState,
    parentSpanId: s.parentSpanId ? idToWire(s.parentSpanId, mode) : undefined,
    flags: s.flags,
    name: s.name,
    kind: s.kind,
    startTimeUnixNano: s.startTimeUnixNano,
    endTimeUnixNano: s.endTimeUnixNano,
    attributes: attributesToWire(s.attributes, mode, kindOf),
    droppedAttributesCount: s.droppedAttributesCount,
    events: s.events.map((e) => ({ timeUnixNano: e.timeUnixNano, name: e.name, attributes: attributesToWire(e.attributes, mode, kindOf) })),
    links: s.links.map((l) => compact({ traceId: idToWire(l.traceId, mode), spanId: idToWire(l.spanId, mode), traceState: l.traceState, attributes: attributesToWire(l.attributes, mode, kindOf), flags: l.flags })),
    status: s.status ? compact({ code: s.status.code, message: s.status.message }) : undefined,
  });
}

function numberPointWire(p: OtlpNumberPoint, mode: WireMode): Wire {
  return compact({
    attributes: attributesToWire(p.attributes, mode),
    startTimeUnixNano: p.startTimeUnixNano,
    timeUnixNano: p.timeUnixNano,
    asInt: p.asInt === undefined ? undefined : mode === 'json' ? String(p.asInt) : p.asInt,
    asDouble: p.asDouble,
    flags: p.flags,
  });
}

function histogramPointWire(p: OtlpHistogramPoint, mode: WireMode): Wire {
  return compact({
    attributes: attributesToWire(p.attributes, mode),
    startTimeUnixNano: p.startTimeUnixNano,
    timeUnixNano: p.timeUnixNano,
    count: mode === 'json' ? String(p.count) : p.count,
    sum: p.sum,
    bucketCounts: p.bucketCounts.map((c) => (mode === 'json' ? String(c) : c)),
    explicitBounds: p.explicitBounds,
    min: p.min,
    max: p.max,
    flags: p.flags,
  });
}

function metricWire(m: OtlpMetric, mode: WireMode): Wire {
  const d = m.data;
  const data: Wire =
    d.kind === 'sum' ? { sum: { dataPoints: d.dataPoints.map((p) => numberPointWire(p, mode)), aggregationTemporality: d.aggregationTemporality, isMonotonic: d.isMonotonic } }
    : d.kind === 'gauge' ? { gauge: { dataPoints: d.dataPoints.map((p) => numberPointWire(p, mode)) } }
    : d.kind === 'histogram' ? { histogram: { dataPoints: d.dataPoints.map((p) => histogramPointWire(p, mode)), aggregationTemporality: d.aggregationTemporality } }
    : { [d.kind]: d.raw };
  return compact({ name: m.name, description: m.description, unit: m.unit, ...data });
}

/** The Export<Signal>ServiceRequest wire object of `req`. */
export function requestToWire(req: OtlpRequest, mode: WireMode, kindOf?: KindOf): Wire {
  const keys = req.signal === 'logs' ? ['resourceLogs', 'scopeLogs', 'logRecords'] : req.signal === 'traces' ? ['resourceSpans', 'scopeSpans', 'spans'] : ['resourceMetrics', 'scopeMetrics', 'metrics'];
  const item = (x: unknown): Wire =>
    req.signal === 'logs' ? logWire(x as OtlpLogRecord, mode, kindOf) : req.signal === 'traces' ? spanWire(x as OtlpSpan, mode, kindOf) : metricWire(x as OtlpMetric, mode);
  return {
    [keys[0]]: req.resources.map((r) =>
      compact({
        resource: resourceWire(r.resource, mode, kindOf),
        schemaUrl: r.schemaUrl,
        [keys[1]]: r.scopes.map((s) => compact({ scope: scopeWire(s.scope, mode), schemaUrl: s.schemaUrl, [keys[2]]: (s.items as unknown[]).map(item) })),
      }),
    ),
  };
}
