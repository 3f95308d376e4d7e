import type { Root, Type } from 'protobufjs';
import { DEFAULT_OTLP_LIMITS } from './limits.js';
import { OTLP_PROTO } from './proto-text.js';

/** The protobufjs message types of the OTLP schema, parsed once on first use. */
export interface OtlpTypes {
  logsRequest: Type;
  tracesRequest: Type;
  metricsRequest: Type;
  logsResponse: Type;
  tracesResponse: Type;
  metricsResponse: Type;
  rpcStatus: Type;
}

let cached: Promise<OtlpTypes> | undefined;

/** Nested messages protobufjs encodes and decodes: 3 per AnyValue level of the 64 kept, plus the envelope. */
export const PROTO_RECURSION_LIMIT = 3 * DEFAULT_OTLP_LIMITS.maxValueDepth + 16;

/** Loads protobufjs lazily (commands that never touch OTLP stay fast) and parses the schema once. */
export function otlpTypes(): Promise<OtlpTypes> {
  cached ??= (async () => {
    const mod = await import('protobufjs');
    const pb = (mod as unknown as { default?: typeof mod }).default ?? mod;
    // protobufjs stops at 100 nested messages (protoc's default), but one AnyValue level is up to
    // three messages (AnyValue > KeyValueList > KeyValue): room for the whole value depth the
    // decoders keep (DEFAULT_OTLP_LIMITS.maxValueDepth), so an admitted request always re-encodes
    pb.util.recursionLimit = Math.max(pb.util.recursionLimit, PROTO_RECURSION_LIMIT);
    pb.Reader.recursionLimit = Math.max(pb.Reader.recursionLimit, PROTO_RECURSION_LIMIT);
    const root: Root = pb.parse(OTLP_PROTO, { keepCase: false }).root;
    const t = (name: string) => root.lookupType(`otlp.${name}`);
    return {
      logsRequest: t('ExportLogsServiceRequest'),
      tracesRequest: t('ExportTraceServiceRequest'),
      metricsRequest: t('ExportMetricsServiceRequest'),
      logsResponse: t('ExportLogsServiceResponse'),
      tracesResponse: t('ExportTraceServiceResponse'),
      metricsResponse: t('ExportMetricsServiceResponse'),
      rpcStatus: t('RpcStatus'),
    };
  })();
  return cached;
}
