import type { OtlpAttributes, OtlpLogRecord, OtlpLogsRequest } from '../../core/telemetry/otlp/index.js';

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
