import { createHash } from 'node:crypto';
import type { OtlpLogRecord, OtlpValue } from '../../core/telemetry/otlp/index.js';
import { str } from './values.js';

/**
 * The dedupe identity of a log record without agent.skill.event.id: a fingerprint of the record
 * plus its occurrence among identical records of the same batch (two identical records in one
 * batch stay two; the same batch delivered again, or re-chunked, dedupes). Marked
 * `batch_fingerprint` (inferred).
 *
 * Admission takes it over the record as received, before anything is dropped or folded, and
 * stamps it as the record's event id (hub/ingest/admission.ts), so a retry fingerprints the same
 * whatever the account's content setting or cardinality window is by then. The normalizer only
 * computes it itself for raw batches stored before that (over what they hold).
 */

function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x) => {
    if (typeof x === 'bigint') return `${x}n`;
    if (x instanceof Uint8Array) return Buffer.from(x).toString('base64');
    if (x && typeof x === 'object' && !Array.isArray(x)) return Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return x;
  });
}

export function fingerprint(parts: unknown, occurrences: Map<string, number>): string {
  const base = createHash('sha256').update(canonical(parts)).digest('hex');
  const n = occurrences.get(base) ?? 0;
  occurrences.set(base, n + 1);
  return n === 0 ? `fp_${base.slice(0, 32)}` : `fp_${createHash('sha256').update(`${base}:${n}`).digest('hex').slice(0, 32)}`;
}

/** The fingerprint of a log record: its name, times, trace context and attributes, and the resource's instance. */
export function logFingerprint(rec: OtlpLogRecord, serviceInstanceId: OtlpValue | undefined, occurrences: Map<string, number>): string {
  const eventName = rec.eventName ?? str(rec.attributes, 'event.name') ?? 'log';
  return fingerprint(['log', eventName, rec.timeUnixNano, rec.observedTimeUnixNano, rec.traceId, rec.spanId, rec.attributes, serviceInstanceId], occurrences);
}
