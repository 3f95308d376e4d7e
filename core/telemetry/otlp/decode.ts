import { SfError } from '../../errors/index.js';
import { OtlpJsonTypeError, requestFromWire } from './from-wire.js';
import { parseOtlpJson } from './json-int64.js';
import { DEFAULT_OTLP_LIMITS, type OtlpLimits } from './limits.js';
import { otlpTypes } from './proto-root.js';
import type { OtlpRequest, OtlpSignal } from './types.js';
import type { DropCounter } from './value.js';

/** Body encodings of OTLP/HTTP. */
export type OtlpEncoding = 'protobuf' | 'json';

/** The encoding named by a Content-Type header, or undefined when it is not an OTLP type. */
export function encodingOf(contentType: string | undefined): OtlpEncoding | undefined {
  const base = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (base === 'application/x-protobuf' || base === 'application/protobuf') return 'protobuf';
  if (base === 'application/json') return 'json';
  return undefined;
}

function decodeError(signal: OtlpSignal, encoding: OtlpEncoding, e: unknown): SfError {
  // a stack overflow (protobufjs#2121) or protobufjs's own depth limit; other RangeErrors are truncation ("index out of range")
  const deep = e instanceof Error && /Maximum call stack|max depth/i.test(e.message);
  const why = deep ? 'it is nested too deeply' : e instanceof Error ? e.message : String(e);
  return new SfError('SF_E_OTLP_DECODE', `the OTLP ${signal} ${encoding} payload could not be decoded: ${why}`, {
    hint: `send an Export${signal === 'traces' ? 'Trace' : signal === 'logs' ? 'Logs' : 'Metrics'}ServiceRequest as application/x-protobuf or OTLP/JSON`,
    cause: e,
  });
}

/**
 * Decodes an (already decompressed) OTLP/HTTP request body. Protobuf and OTLP/JSON yield the same
 * shape. Throws SF_E_OTLP_DECODE for bodies that are not a valid request, including protobuf
 * nesting deep enough to exhaust the stack (protobufjs#2121) and OTLP/JSON fields of the wrong
 * type (from-wire.ts, OtlpJsonTypeError).
 */
export async function decodeOtlpRequest(signal: OtlpSignal, body: Uint8Array, encoding: OtlpEncoding, limits: OtlpLimits = DEFAULT_OTLP_LIMITS, totals: DropCounter = { dropped: 0 }): Promise<OtlpRequest> {
  if (body.byteLength > limits.maxBodyBytes) {
    throw new SfError('SF_E_LIMIT', `the OTLP ${signal} body has ${body.byteLength} bytes; the limit is ${limits.maxBodyBytes}`, { hint: 'send smaller batches' });
  }
  let wire: Record<string, unknown>;
  try {
    if (encoding === 'protobuf') {
      const types = await otlpTypes();
      const type = signal === 'logs' ? types.logsRequest : signal === 'traces' ? types.tracesRequest : types.metricsRequest;
      wire = type.toObject(type.decode(body), { longs: String, enums: Number, defaults: false }) as Record<string, unknown>;
    } else {
      // int64 number literals kept exact (json-int64.ts), as protobuf's JSON parsers read them
      const parsed: unknown = body.byteLength === 0 ? {} : parseOtlpJson(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('the JSON body is not an object');
      wire = parsed as Record<string, unknown>;
    }
  } catch (e) {
    throw decodeError(signal, encoding, e);
  }
  try {
    return requestFromWire(signal, wire, encoding === 'protobuf' ? 'proto' : 'json', limits, totals);
  } catch (e) {
    if (e instanceof RangeError || e instanceof OtlpJsonTypeError) throw decodeError(signal, encoding, e);
    throw e;
  }
}
