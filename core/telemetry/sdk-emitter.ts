import type { ObservationEnvelope } from '../../schemas/generated/observation-envelope.js';
import { isoToNanos } from './time.js';

/**
 * Emits observation envelopes (built with buildEvent) as OTel LogRecords through the real OTel JS
 * SDK (Node 20 line: sdk-logs + exporter-logs-otlp-proto 0.223.1) to an OTLP/HTTP endpoint,
 * normally the local observer's receiver, which re-checks catalog events and forwards them. For
 * in-process Forge producers (commands, hooks with a longer budget). The SDK is loaded lazily.
 * Fails open: export errors are swallowed by the SDK's exporter and never thrown to the caller.
 */

export interface SdkEmitterOptions {
  /** full logs URL, e.g. http://127.0.0.1:14318/v1/logs */
  url: string;
  headers?: Record<string, string>;
  /** resource attributes of the emitting process; service.name required */
  resource: { 'service.name': string } & Record<string, string | number | boolean>;
  scope?: { name: string; version?: string };
  /** export timeout (default 2 s: an emitter must never hold its process long) */
  timeoutMs?: number;
}

export interface SdkEmitter {
  emit(envelope: ObservationEnvelope): void;
  /** exports what is buffered; resolves even when the endpoint is down */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

const nanosToHrTime = (nanos: string): [number, number] => {
  const n = BigInt(nanos);
  return [Number(n / 1_000_000_000n), Number(n % 1_000_000_000n)];
};

export async function createSdkEmitter(opts: SdkEmitterOptions): Promise<SdkEmitter> {
  const [{ LoggerProvider, BatchLogRecordProcessor }, { OTLPLogExporter }, { resourceFromAttributes }, api] = await Promise.all([
    import('@opentelemetry/sdk-logs'),
    import('@opentelemetry/exporter-logs-otlp-proto'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/api'),
  ]);
  const exporter = new OTLPLogExporter({ url: opts.url, headers: opts.headers ?? {}, timeoutMillis: opts.timeoutMs ?? 2000 });
  const provider = new LoggerProvider({
    resource: resourceFromAttributes(opts.resource),
    processors: [new BatchLogRecordProcessor({ exporter, scheduledDelayMillis: 200, exportTimeoutMillis: opts.timeoutMs ?? 2000 })],
  });
  const logger = provider.getLogger(opts.scope?.name ?? 'sf', opts.scope?.version);
  return {
    emit(e) {
      const spanContext = e.trace_id && e.span_id ? { traceId: e.trace_id, spanId: e.span_id, traceFlags: e.trace_flags ?? 1 } : undefined;
      logger.emit({
        eventName: e.event_name,
        severityNumber: e.severity_number ?? 9,
        severityText: e.severity_text ?? 'INFO',
        ...(e.body ? { body: e.body } : {}),
        ...(e.timestamp ? { timestamp: nanosToHrTime(isoToNanos(e.timestamp)) } : {}),
        observedTimestamp: nanosToHrTime(isoToNanos(e.observed_timestamp)),
        attributes: e.attributes as Record<string, string | number | boolean | string[] | number[] | boolean[]>,
        ...(spanContext ? { context: api.trace.setSpanContext(api.context.active(), spanContext) } : {}),
      });
    },
    flush: () => provider.forceFlush().catch(() => undefined),
    shutdown: () => provider.shutdown().catch(() => undefined),
  };
}
