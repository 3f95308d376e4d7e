import type { ObservationEnvelope } from '../../schemas/generated/observation-envelope.js';
import type { OtlpLogRecord, OtlpLogsRequest, OtlpValue, ResourceGroup } from './otlp/types.js';
import { isoToNanos, nanosToIso } from './time.js';

/**
 * Observation envelopes <-> OTLP log records. Envelopes sharing a resource and scope become one
 * ResourceLogs/ScopeLogs group; the scope's schema_url is the envelope's schema_url. Pure.
 */

const stable = (o: Record<string, unknown>): string => JSON.stringify(Object.keys(o).sort().map((k) => [k, o[k]]));

/** Groups envelopes into one ExportLogsServiceRequest (order of records preserved per group). */
export function envelopesToLogsRequest(envelopes: readonly ObservationEnvelope[]): OtlpLogsRequest {
  const byResource = new Map<string, ResourceGroup<OtlpLogRecord>>();
  for (const e of envelopes) {
    const rKey = stable(e.resource as Record<string, unknown>);
    let group = byResource.get(rKey);
    if (!group) byResource.set(rKey, (group = { resource: { attributes: { ...(e.resource as Record<string, OtlpValue>) } }, scopes: [] }));
    const scope = e.scope ?? { name: 'sf-observer' };
    let sg = group.scopes.find((s) => s.scope.name === scope.name && s.scope.version === scope.version && s.schemaUrl === e.schema_url);
    if (!sg) group.scopes.push((sg = { scope: { ...scope }, ...(e.schema_url ? { schemaUrl: e.schema_url } : {}), items: [] }));
    const rec: OtlpLogRecord = {
      timeUnixNano: e.timestamp ? isoToNanos(e.timestamp) : '0',
      observedTimeUnixNano: isoToNanos(e.observed_timestamp),
      attributes: { ...(e.attributes as Record<string, OtlpValue>) },
      eventName: e.event_name,
    };
    if (e.severity_number) rec.severityNumber = e.severity_number;
    if (e.severity_text) rec.severityText = e.severity_text;
    if (e.body) rec.body = e.body;
    if (e.trace_id) rec.traceId = e.trace_id;
    if (e.span_id) rec.spanId = e.span_id;
    if (e.trace_flags !== undefined) rec.flags = e.trace_flags;
    sg.items.push(rec);
  }
  return { signal: 'logs', resources: [...byResource.values()] };
}

/** The envelopes of a logs request whose records carry an EventName (records without one are skipped). */
export function logsRequestToEnvelopes(req: OtlpLogsRequest): ObservationEnvelope[] {
  const out: ObservationEnvelope[] = [];
  for (const r of req.resources) {
    for (const s of r.scopes) {
      for (const rec of s.items) {
        if (!rec.eventName) continue;
        const env: ObservationEnvelope = {
          event_name: rec.eventName,
          observed_timestamp: nanosToIso(rec.observedTimeUnixNano),
          resource: r.resource.attributes as ObservationEnvelope['resource'],
          attributes: rec.attributes as ObservationEnvelope['attributes'],
        };
        if (rec.timeUnixNano !== '0') env.timestamp = nanosToIso(rec.timeUnixNano);
        if (rec.traceId) env.trace_id = rec.traceId;
        if (rec.spanId) env.span_id = rec.spanId;
        if (rec.flags !== undefined) env.trace_flags = rec.flags;
        if (rec.severityNumber) env.severity_number = rec.severityNumber;
        if (rec.severityText) env.severity_text = rec.severityText;
        if (typeof rec.body === 'string' && rec.body) env.body = rec.body;
        if (s.schemaUrl) env.schema_url = s.schemaUrl;
        env.scope = { name: s.scope.name, ...(s.scope.version ? { version: s.scope.version } : {}) };
        out.push(env);
      }
    }
  }
  return out;
}
