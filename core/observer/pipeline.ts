import { EVENTS } from '../../schemas/generated/semconv.js';
import type { ObservationEnvelope } from '../../schemas/generated/observation-envelope.js';
import { numberKindOf } from '../telemetry/attributes.js';
import { envelopesToLogsRequest } from '../telemetry/envelope-otlp.js';
import { OBSERVER_SCOPE } from '../telemetry/event.js';
import { ClientMetrics } from '../telemetry/metrics.js';
import type { NormalizedOutput, ResourceSpan } from '../telemetry/normalize/index.js';
import { otlpJsonObject } from '../telemetry/otlp/encode.js';
import { recordCount, type OtlpRequest, type OtlpSpan, type OtlpValue, type ResourceGroup } from '../telemetry/otlp/types.js';
import { nowNanos } from '../telemetry/time.js';
import { SEMCONV_SCHEMA_URL } from '../../schemas/generated/semconv.js';
import type { DeliveryWorker } from './delivery.js';
import { redactAttributes } from './redact.js';
import type { ObserverStore } from './store.js';

/**
 * Batches normalized output and hands it to every destination's queue: events become one
 * ExportLogsServiceRequest, spans one ExportTraceServiceRequest, per flush (size or delay,
 * whichever first); client metrics are exported cumulatively on their own interval. Everything
 * is redacted once more on the way out. Queueing is synchronous and local: it never waits for a
 * destination.
 */

export interface PipelineOptions {
  store: ObserverStore;
  workers: readonly DeliveryWorker[];
  maxBatchRecords: number;
  batchDelayMs: number;
  maxQueueRecords: number;
  /** resource of the observer's own metrics */
  metricsResource: Record<string, OtlpValue>;
}

export class ExportPipeline {
  private events: ObservationEnvelope[] = [];
  private spans: ResourceSpan[] = [];
  private timer: NodeJS.Timeout | undefined;
  readonly metrics = new ClientMetrics(nowNanos());
  /** records handed to the destination queues, per signal */
  readonly queued = { logs: 0, traces: 0, metrics: 0 };
  private lastDropped = 0;

  constructor(private readonly opts: PipelineOptions) {}

  /** Accepts one normalizer output; flushes when the batch is full, else within the batch delay. */
  submit(out: NormalizedOutput): void {
    for (const m of out.metrics) this.metrics.record(m.name, m.value, m.attributes);
    if (out.events.length === 0 && out.spans.length === 0) return;
    this.events.push(...out.events);
    this.spans.push(...out.spans);
    if (this.events.length + this.spans.length >= this.opts.maxBatchRecords) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.opts.batchDelayMs);
  }

  /** Queues everything buffered now. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const events = this.events;
    const spans = this.spans;
    this.events = [];
    this.spans = [];
    if (events.length) {
      const redacted = events.map((e) => ({ ...e, attributes: redactAttributes(e.attributes) }));
      // a batch holding an always-retain event (selection, load failure, intervention ...) is dropped last when the queue is full
      const retain = events.some((e) => (EVENTS as Record<string, { alwaysRetain: boolean } | undefined>)[e.event_name]?.alwaysRetain === true);
      this.enqueue(envelopesToLogsRequest(redacted), events.length, retain);
    }
    if (spans.length) this.enqueue(spansRequest(spans), spans.length);
  }

  /** Queues the cumulative client metrics (with drops seen since the last export counted). */
  exportMetrics(): void {
    const dropped = this.opts.workers.reduce((n, w) => n + this.opts.store.stats(w.target.name).dropped, 0);
    if (dropped > this.lastDropped) {
      this.metrics.record('agent.skill.telemetry.dropped.count', dropped - this.lastDropped, { 'agent.adapter.name': 'sf-observer' });
      this.lastDropped = dropped;
    }
    const req = this.metrics.collect(nowNanos(), this.opts.metricsResource, { ...OBSERVER_SCOPE });
    if (req) this.enqueue(req, recordCount(req));
  }

  private enqueue(req: OtlpRequest, records: number, retain = false): void {
    const body = JSON.stringify(otlpJsonObject(req, numberKindOf));
    for (const w of this.opts.workers) {
      this.opts.store.enqueue(w.target.name, { signal: req.signal, body, records, ...(retain ? { retain } : {}) }, this.opts.maxQueueRecords);
      w.wake();
    }
    this.queued[req.signal] += records;
  }

  stop(): void {
    this.flush();
  }
}

function spansRequest(spans: readonly ResourceSpan[]): OtlpRequest {
  const groups = new Map<string, ResourceGroup<OtlpSpan>>();
  for (const { resource, span } of spans) {
    const key = JSON.stringify(Object.entries(resource).sort());
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { resource: { attributes: { ...resource } }, scopes: [{ scope: { ...OBSERVER_SCOPE }, schemaUrl: SEMCONV_SCHEMA_URL, items: [] }] }));
    g.scopes[0].items.push({ ...span, attributes: redactAttributes(span.attributes) });
  }
  return { signal: 'traces', resources: [...groups.values()] };
}
