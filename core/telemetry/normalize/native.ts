import type { OtlpAttributes, OtlpLogRecord } from '../otlp/types.js';
import { isoToNanos } from '../time.js';

/** Small readers of native host attributes (values are untrusted; wrong types read as absent). */

export const str = (a: OtlpAttributes, key: string): string | undefined => {
  const v = a[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
};

export const num = (a: OtlpAttributes, key: string): number | undefined => {
  const v = a[key];
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};

export const bool = (a: OtlpAttributes, key: string): boolean | undefined => {
  const v = a[key];
  return typeof v === 'boolean' ? v : v === 'true' ? true : v === 'false' ? false : undefined;
};

/** The source time of a record: timeUnixNano, else an `event.timestamp` attribute, else observed time. */
export function recordTime(rec: OtlpLogRecord): string {
  if (rec.timeUnixNano !== '0') return rec.timeUnixNano;
  const ts = str(rec.attributes, 'event.timestamp');
  if (ts && !Number.isNaN(Date.parse(ts))) return isoToNanos(ts);
  return rec.observedTimeUnixNano;
}

/** A field of a JSON-object string attribute (e.g. Claude's tool_parameters), or undefined. */
export function jsonField(a: OtlpAttributes, key: string, field: string): string | undefined {
  const raw = str(a, key);
  if (!raw) return undefined;
  try {
    const v = (JSON.parse(raw) as Record<string, unknown>)[field];
    return typeof v === 'string' && v !== '' ? v : undefined;
  } catch (e) {
    if (e instanceof SyntaxError) return undefined;
    throw e;
  }
}
