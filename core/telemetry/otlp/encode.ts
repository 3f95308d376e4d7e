import type { OtlpEncoding } from './decode.js';
import { otlpTypes } from './proto-root.js';
import { requestToWire, type KindOf } from './to-wire.js';
import type { OtlpRequest, OtlpSignal } from './types.js';

/** The OTLP/JSON object of a request (one line of an OTLP JSON-lines file). */
export function otlpJsonObject(req: OtlpRequest, kindOf?: KindOf): Record<string, unknown> {
  return requestToWire(req, 'json', kindOf);
}

/** Serializes a request as an OTLP/HTTP body in the given encoding. */
export async function encodeOtlpRequest(req: OtlpRequest, encoding: OtlpEncoding, kindOf?: KindOf): Promise<Uint8Array> {
  if (encoding === 'json') return Buffer.from(JSON.stringify(requestToWire(req, 'json', kindOf)));
  const types = await otlpTypes();
  const type = req.signal === 'logs' ? types.logsRequest : req.signal === 'traces' ? types.tracesRequest : types.metricsRequest;
  return type.encode(type.fromObject(requestToWire(req, 'proto', kindOf))).finish();
}

/** Re-encodes an OTLP/JSON request object as protobuf (the queue stores JSON; protobuf destinations get this). */
export async function jsonObjectToProtobuf(signal: OtlpSignal, json: Record<string, unknown>): Promise<Uint8Array> {
  const { decodeOtlpRequest } = await import('./decode.js');
  const req = await decodeOtlpRequest(signal, Buffer.from(JSON.stringify(json)), 'json');
  return encodeOtlpRequest(req, 'protobuf');
}

export interface PartialSuccess {
  rejected: number;
  errorMessage?: string;
}

const REJECTED_FIELD = { logs: 'rejectedLogRecords', traces: 'rejectedSpans', metrics: 'rejectedDataPoints' } as const;

/** An Export<Signal>ServiceResponse body: empty on full success, with partial_success otherwise. */
export async function encodeExportResponse(signal: OtlpSignal, encoding: OtlpEncoding, partial?: PartialSuccess): Promise<Uint8Array> {
  const wire = partial ? { partialSuccess: { [REJECTED_FIELD[signal]]: String(partial.rejected), errorMessage: partial.errorMessage ?? '' } } : {};
  if (encoding === 'json') return Buffer.from(JSON.stringify(wire));
  const types = await otlpTypes();
  const type = signal === 'logs' ? types.logsResponse : signal === 'traces' ? types.tracesResponse : types.metricsResponse;
  return type.encode(type.fromObject(wire)).finish();
}

/** A google.rpc.Status error body (the OTLP/HTTP failure response) in the request's encoding. */
export async function encodeRpcStatus(encoding: OtlpEncoding, code: number, message: string): Promise<Uint8Array> {
  if (encoding === 'json') return Buffer.from(JSON.stringify({ code, message }));
  const types = await otlpTypes();
  return types.rpcStatus.encode(types.rpcStatus.fromObject({ code, message })).finish();
}

/** Parses a partial_success from an Export<Signal>ServiceResponse body (undefined when absent or unparsable). */
export async function decodeExportResponse(signal: OtlpSignal, encoding: OtlpEncoding, body: Uint8Array): Promise<PartialSuccess | undefined> {
  if (body.byteLength === 0) return undefined;
  let wire: Record<string, unknown>;
  if (encoding === 'json') wire = JSON.parse(Buffer.from(body).toString('utf8')) as Record<string, unknown>;
  else {
    const types = await otlpTypes();
    const type = signal === 'logs' ? types.logsResponse : signal === 'traces' ? types.tracesResponse : types.metricsResponse;
    wire = type.toObject(type.decode(body), { longs: String }) as Record<string, unknown>;
  }
  const p = wire.partialSuccess as Record<string, unknown> | undefined;
  if (!p) return undefined;
  const rejected = Number(p[REJECTED_FIELD[signal]] ?? 0);
  const errorMessage = typeof p.errorMessage === 'string' && p.errorMessage ? p.errorMessage : undefined;
  return rejected || errorMessage ? { rejected, ...(errorMessage ? { errorMessage } : {}) } : undefined;
}
