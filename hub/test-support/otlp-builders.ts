import type { OtlpAttributes, OtlpLogRecord, OtlpLogsRequest, OtlpSpan, OtlpTracesRequest } from '../../core/telemetry/otlp/index.js';

/** Small builders of decoded OTLP requests for hub tests (encode them with encodeOtlpRequest). */

let counter = 0;

/** A metadata-only agent.skill.* log record with a unique event id unless one is given. */
export function skillRecord(eventName: string, attributes: OtlpAttributes = {}, timeMs = Date.UTC(2026, 7, 9, 18, 42, 10)): OtlpLogRecord {
  const nanos = `${timeMs}000000`;
  return {
    timeUnixNano: nanos,
    observedTimeUnixNano: nanos,
    eventName,
    attributes: {
      'agent.skill.schema.version': '1.0.0',
      'agent.skill.event.id': `evt_test_${++counter}`,
      'agent.skill.evidence.source': 'native_otel',
      'agent.skill.evidence.fidelity': 'exact',
      'session.id': 'sess_test',
      ...attributes,
    },
  };
}

export function logsRequest(records: OtlpLogRecord[], resource: OtlpAttributes = { 'service.name': 'claude-code' }): OtlpLogsRequest {
  return { signal: 'logs', resources: [{ resource: { attributes: resource }, scopes: [{ scope: { name: 'test' }, items: records }] }] };
}

export { field, stringField, varint } from '../../test-support/protobuf-wire.js';
import { field, stringField } from '../../test-support/protobuf-wire.js';

/** LogRecord.attributes entry with a string value. */
export const kvString = (key: string, value: string | Buffer) => field(6, 2, Buffer.concat([stringField(1, key), field(2, 2, stringField(1, value))]));
/** ExportLogsServiceRequest with one resource and scope holding raw LogRecord bodies. */
export const rawLogsBody = (records: Buffer[]) => field(1, 2, field(2, 2, Buffer.concat(records.map((r) => field(2, 2, r)))));

/** A span (ids made up unless given) for decoded OTLP trace requests. */
let spanCounter = 0;
export function testSpan(name: string, attributes: OtlpAttributes, startMs: number, endMs: number, extra: Partial<OtlpSpan> = {}): OtlpSpan {
  return {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: (++spanCounter).toString(16).padStart(16, '0'), name, kind: 1,
    startTimeUnixNano: `${startMs}000000`, endTimeUnixNano: `${endMs}000000`, attributes, events: [], links: [], ...extra,
  };
}

export function tracesRequest(spans: OtlpSpan[], resource: OtlpAttributes = { 'service.name': 'claude-code' }): OtlpTracesRequest {
  return { signal: 'traces', resources: [{ resource: { attributes: resource }, scopes: [{ scope: { name: 'test' }, items: spans }] }] };
}
