import type { OtlpLogRecord, OtlpRequest, OtlpSpan } from '../../core/telemetry/otlp/index.js';
import { applyEvent } from '../projections/apply.js';
import { BatchCachedWriter } from '../projections/batch-cache.js';
import { RollupAccumulator } from '../projections/rollups.js';
import type { ActivationSpanEnd } from '../projections/activations.js';
import type { ActivationResult, ObservationEventRow } from '../projections/rows.js';
import type { ProjectionWriter } from '../storage/telemetry-ports.js';
import { logEvent, spanCatalogEvents, spanEvent, type BatchContext } from './event.js';
import { msOfIso, str } from './values.js';

export interface NormalizeStats {
  /** events applied to the projections */
  events: number;
  /** events skipped because their id was already stored (replays, retries, duplicates) */
  duplicates: number;
}

/** One normalized event of a batch: its observation_events row, plus the end of an activation span. */
export interface BatchEvent {
  row: ObservationEventRow;
  span?: ActivationSpanEnd;
}

const RESULTS: ReadonlySet<string> = new Set<ActivationResult>(['ok', 'error', 'blocked', 'cancelled', 'unknown']);

/**
 * How an activation span ended, from its agent.skill.result (the spec's enum, mapped as it is:
 * blocked and cancelled are neither a load nor a failure) and its status: an error status without
 * a more specific result is `error`; no result and no error is `ok`; a value outside the enum is `unknown`.
 */
export function spanResult(result: string | undefined, statusCode: number | undefined): ActivationResult {
  if (result === 'blocked' || result === 'cancelled') return result;
  if (statusCode === 2 || result === 'error') return 'error';
  if (result === undefined) return 'ok';
  return RESULTS.has(result) ? (result as ActivationResult) : 'unknown';
}


/**
 * The events of one admitted raw batch, in record order. Pure over the request and the batch
 * context (server-authoritative identity). Metrics carry no events (spec: rollups come from
 * events, never from client metrics) and are only kept raw.
 */
export function batchEvents(req: OtlpRequest, ctx: BatchContext): BatchEvent[] {
  const out: BatchEvent[] = [];
  if (req.signal === 'metrics') return out;
  const occurrences = new Map<string, number>();
  for (const group of req.resources) {
    const res = { attributes: group.resource.attributes, ...(group.schemaUrl ? { schemaUrl: group.schemaUrl } : {}) };
    for (const scope of group.scopes) {
      if (req.signal === 'logs') {
        for (const rec of scope.items as OtlpLogRecord[]) out.push({ row: logEvent(ctx, res, rec, occurrences) });
        continue;
      }
      for (const span of scope.items as OtlpSpan[]) {
        const row = spanEvent(ctx, res, span);
        const result = spanResult(str(span.attributes, 'agent.skill.result'), span.status?.code);
        out.push(row.eventName === 'span.agent.skill.activation' ? { row, span: { endNanos: span.endTimeUnixNano, result } } : { row });
        for (const ev of spanCatalogEvents(ctx, res, span)) out.push({ row: ev });
      }
    }
  }
  return out;
}

/**
 * Applies a batch's events to the projections, inside the caller's transaction. Every event is
 * deduplicated on its id, so applying the same batch any number of times changes nothing after
 * the first. `encoded(i)` may give event i's row already in the store's encoding (see
 * ProjectionStore.encodeEvents), made ahead of the transaction.
 */
export function applyEvents(store: ProjectionWriter, events: readonly BatchEvent[], normalizerVersion: string, encoded?: (i: number) => Uint8Array): NormalizeStats {
  const stats: NormalizeStats = { events: 0, duplicates: 0 };
  const w = new BatchCachedWriter(store);
  const rollups = new RollupAccumulator(normalizerVersion);
  const seen = new Set<string>();
  for (let i = 0; i < events.length; i++) {
    const { row, span } = events[i];
    if (seen.has(row.eventId)) {
      stats.duplicates++;
      continue;
    }
    seen.add(row.eventId);
    if (applyEvent(w, row, msOfIso(row.time), rollups, span, encoded?.(i))) stats.events++;
    else stats.duplicates++;
  }
  rollups.flush(w);
  w.flush();
  return stats;
}

/**
 * The versioned, idempotent normalizer: one admitted raw batch -> projection writes, inside the
 * caller's transaction. Events are deduplicated on their agent.skill.event.id (or, when the
 * source has none, a batch fingerprint marked `batch_fingerprint`).
 */
export function normalizeBatch(store: ProjectionWriter, req: OtlpRequest, ctx: BatchContext): NormalizeStats {
  return applyEvents(store, batchEvents(req, ctx), ctx.normalizerVersion);
}
