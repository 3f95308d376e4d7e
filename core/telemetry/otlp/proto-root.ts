import type { Root, Type } from 'protobufjs';
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

/** Loads protobufjs lazily (commands that never touch OTLP stay fast) and parses the schema once. */
export function otlpTypes(): Promise<OtlpTypes> {
  cached ??= (async () => {
    const mod = await import('protobufjs');
    const pb = (mod as unknown as { default?: typeof mod }).default ?? mod;
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
