import { SfError } from '../../core/errors/index.js';
import { decodeProtobufDirect } from '../../core/telemetry/otlp/direct-decode.js';
import { requestFromWire, type WireTotals } from '../../core/telemetry/otlp/from-wire.js';
import { parseOtlpJson } from '../../core/telemetry/otlp/json-int64.js';
import { recordCount, type OtlpEncoding, type OtlpLimits, type OtlpRequest, type OtlpSignal } from '../../core/telemetry/otlp/index.js';

/** A decoded ingest body plus what decoding alone removed (for partial_success and raw storage). */
export interface DecodedBody {
  request: OtlpRequest;
  /** records rejected while decoding (spans without valid ids) */
  rejected: number;
  /** attributes/values cut by the limits while decoding */
  droppedByLimits: number;
  /** true when the decoded request holds everything the bytes held (so the bytes may be stored verbatim) */
  lossless: boolean;
  /** strings whose invalid UTF-8 decoding replaced with U+FFFD */
  repaired: number;
  /** records or spans past the per-request limit, skipped without being decoded */
  overLimit: number;
  /** malformed trace, span or parent span ids dropped from kept records (the records are kept without them) */
  malformedIds: number;
}

const LISTS = {
  logs: ['resourceLogs', 'scopeLogs', 'logRecords'],
  traces: ['resourceSpans', 'scopeSpans', 'spans'],
  metrics: ['resourceMetrics', 'scopeMetrics', 'metrics'],
} as const;

/** Items on the OTLP/JSON wire (metrics count one per metric; only logs and spans can be rejected by decoding). */
function wireItems(signal: OtlpSignal, wire: Record<string, unknown>): number {
  const [r, s, i] = LISTS[signal];
  let n = 0;
  const arr = (v: unknown) => (Array.isArray(v) ? (v as Record<string, unknown>[]) : []);
  for (const rg of arr(wire[r])) for (const sg of arr(rg?.[s])) n += arr(sg?.[i]).length;
  return n;
}

function itemsOf(req: OtlpRequest): number {
  let n = 0;
  for (const r of req.resources) for (const s of r.scopes) n += s.items.length;
  return n;
}

/**
 * Decodes an ingest body. Protobuf uses the direct decoder (core/telemetry/otlp/direct-decode.ts:
 * limits applied while reading, so hostile sizes and depths cost a scan, not memory or the whole
 * request); OTLP/JSON (hex ids, int64 as string or number)
 * goes through the shared wire converter. Throws SF_E_OTLP_DECODE (400) for undecodable bodies.
 */
export async function decodeBody(signal: OtlpSignal, encoding: OtlpEncoding, body: Uint8Array, limits: OtlpLimits): Promise<DecodedBody> {
  if (encoding === 'protobuf') {
    const d = decodeProtobufDirect(signal, body, limits);
    return {
      request: d.request,
      rejected: d.rejectedItems,
      droppedByLimits: d.droppedByLimits,
      repaired: d.repairedStrings,
      overLimit: d.overLimit,
      malformedIds: d.malformedIds,
      lossless: d.droppedByLimits === 0 && d.skippedFields === 0 && d.rejectedItems === 0 && d.repairedStrings === 0 && d.malformedIds === 0,
    };
  }
  let wire: unknown;
  try {
    // int64 number literals kept exact (json-int64.ts), as protobuf's JSON parsers read them
    wire = body.byteLength === 0 ? {} : parseOtlpJson(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch (e) {
    throw new SfError('SF_E_OTLP_DECODE', `the OTLP ${signal} JSON payload could not be parsed: ${(e as Error).message}`, {
      hint: 'send OTLP/JSON (lowerCamelCase keys, hex trace and span ids, int64 as string or number)',
    });
  }
  if (wire === null || typeof wire !== 'object' || Array.isArray(wire)) {
    throw new SfError('SF_E_OTLP_DECODE', `the OTLP ${signal} JSON payload is not an object`, { hint: `send an Export${signal === 'logs' ? 'Logs' : signal === 'traces' ? 'Trace' : 'Metrics'}ServiceRequest object` });
  }
  let request: OtlpRequest;
  const cut: WireTotals = { dropped: 0 };
  try {
    request = requestFromWire(signal, wire as Record<string, unknown>, 'json', limits, cut);
  } catch (e) {
    if (!(e instanceof RangeError || e instanceof TypeError)) throw e;
    throw new SfError('SF_E_OTLP_DECODE', `the OTLP ${signal} JSON payload could not be decoded: ${e.message}`, { hint: 'check the payload against the OTLP/JSON encoding rules' });
  }
  const overLimit = cut.overLimit ?? 0;
  const rejected = signal === 'metrics' ? 0 : wireItems(signal, wire as Record<string, unknown>) - itemsOf(request) - overLimit;
  return { request, rejected, droppedByLimits: cut.dropped, repaired: 0, overLimit, malformedIds: cut.malformedIds ?? 0, lossless: false };
}

export { recordCount };
