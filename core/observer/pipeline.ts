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
import { redactAttributes, redactSpanName, redactText } from './redact.js';
import type { ObserverStore, OutgoingItem } from './store.js';

/**
 * Batches normalized output and hands it to every destination's queue: events become
 * ExportLogsServiceRequests, spans ExportTraceServiceRequests, per flush (size or delay,
 * whichever first), none holding more than `maxBatchRecords` records however much arrived at
 * once (an outbox catch-up, a spool replay, a host's big export: a receiver such as the hub
 * refuses the records past its per-request limit); client metrics are exported cumulatively on
 * their own interval. Everything is redacted once more on the way out. Queueing is synchronous and local: it never waits for a
 * destination.
 *
 * The batch being gathered lives in the store's journal, not in memory: `submit` returns only
 * once the output is on disk, so whatever the observer acknowledged survives a crash inside the
 * batch window, and the flush moves the journal into the queues in one transaction.
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
  /** records in the journal, for the size trigger */
  private buffered: number;
  private timer: NodeJS.Timeout | undefined;
  readonly metrics = new ClientMetrics(nowNanos());
  /** records handed to the destination queues, per signal */
  readonly queued = { logs: 0, traces: 0, metrics: 0 };
  private lastDropped = 0;

  constructor(private readonly opts: PipelineOptions) {
    // what a stopped (or crashed) observer journaled is queued by the first flush
    this.buffered = opts.store.journalRecords();
  }

  /**
   * Accepts one normalizer output, durably (journaled before this returns), with the tail offset
   * it consumed, if any; flushes when the batch is full, else within the batch delay.
   */
  submit(out: NormalizedOutput, offset?: { name: string; value: number }): void {
    for (const m of out.metrics) this.metrics.record(m.name, m.value, m.attributes);
    if (out.events.length === 0 && out.spans.length === 0) {
      if (offset) this.opts.store.setOffset(offset.name, offset.value);
      return;
    }
    this.opts.store.appendJournal({ events: out.events, spans: out.spans }, offset);
    this.buffered += out.events.length + out.spans.length;
    if (this.buffered >= this.opts.maxBatchRecords) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.opts.batchDelayMs);
  }

  /** Queues everything journaled now. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.buffered = 0;
    const names = this.opts.workers.map((w) => w.target.name);
    const build = (entries: unknown[]) => batchRequests(entries as { events: ObservationEnvelope[]; spans: ResourceSpan[] }[], this.opts.maxBatchRecords);
    const items = this.opts.store.drainJournal(build, names, this.opts.maxQueueRecords);
    for (const item of items) this.queued[item.signal] += item.records;
    if (items.length) for (const w of this.opts.workers) w.wake();
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

  private enqueue(req: OtlpRequest, records: number): void {
    const body = serialize(req);
    for (const w of this.opts.workers) {
      this.opts.store.enqueue(w.target.name, { signal: req.signal, body, records }, this.opts.maxQueueRecords);
      w.wake();
    }
    this.queued[req.signal] += records;
  }

  stop(): void {
    this.flush();
  }
}

const serialize = (req: OtlpRequest) => JSON.stringify(otlpJsonObject(req, numberKindOf));

/** `list` in consecutive slices of at most `size` items. */
function slices<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** The journaled entries as logs requests, then traces requests, of at most `maxRecords` records each, in order, redacted. */
function batchRequests(entries: readonly { events: ObservationEnvelope[]; spans: ResourceSpan[] }[], maxRecords: number): OutgoingItem[] {
  const size = Math.max(1, maxRecords);
  return [...slices(entries.flatMap((e) => e.events), size).map(logsItem), ...slices(entries.flatMap((e) => e.spans), size).map(tracesItem)];
}

function logsItem(events: readonly ObservationEnvelope[]): OutgoingItem {
  // every string that leaves: attributes, the resource and a body (the same rules, so a value masked in one place is not sent in clear in another)
  const redacted = events.map((e) => ({ ...e, resource: redactAttributes(e.resource), attributes: redactAttributes(e.attributes), ...(e.body !== undefined ? { body: redactText(e.body) } : {}) }));
  // a request holding an always-retain event (selection, load failure, intervention ...) is dropped last when the queue is full
  const retain = events.some((e) => (EVENTS as Record<string, { alwaysRetain: boolean } | undefined>)[e.event_name]?.alwaysRetain === true);
  return { signal: 'logs', body: serialize(envelopesToLogsRequest(redacted)), records: events.length, ...(retain ? { retain } : {}) };
}

function tracesItem(spans: readonly ResourceSpan[]): OutgoingItem {
  return { signal: 'traces', body: serialize(spansRequest(spans)), records: spans.length };
}

function spansRequest(spans: readonly ResourceSpan[]): OtlpRequest {
  const groups = new Map<string, ResourceGroup<OtlpSpan>>();
  for (const { resource: raw, span } of spans) {
    const resource = redactAttributes(raw);
    const key = JSON.stringify(Object.entries(resource).sort());
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { resource: { attributes: { ...resource } }, scopes: [{ scope: { ...OBSERVER_SCOPE }, schemaUrl: SEMCONV_SCHEMA_URL, items: [] }] }));
    // the activation span is named after the skill, and an unconfirmed skill name comes from model-written tool arguments
    g.scopes[0].items.push({ ...span, name: redactSpanName(span.name, span.attributes), attributes: redactAttributes(span.attributes) });
  }
  return { signal: 'traces', resources: [...groups.values()] };
}
