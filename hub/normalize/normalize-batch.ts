import type { OtlpLogRecord, OtlpRequest, OtlpSpan } from '../../core/telemetry/otlp/index.js';
import { applyEvent } from '../projections/apply.js';
import { BatchCachedWriter } from '../projections/batch-cache.js';
import { RollupAccumulator } from '../projections/rollups.js';
import type { ProjectionWriter } from '../storage/telemetry-ports.js';
import { logEvent, spanCatalogEvents, spanEvent, type BatchContext } from './event.js';

export interface NormalizeStats {
  /** events applied to the projections */
  events: number;
  /** events skipped because their id was already stored (replays, retries, duplicates) */
  duplicates: number;
}

const msOf = (iso: string): number => Date.parse(iso);

/**
 * The versioned, idempotent normalizer: one admitted raw batch -> projection writes, inside the
 * caller's transaction. Every event is deduplicated on its agent.skill.event.id (or, when the
 * source has none, a batch fingerprint marked `batch_fingerprint`), so applying the same batch
 * any number of times changes nothing after the first. Metrics carry no events (spec: rollups
 * come from events, never from client metrics) and are only kept raw.
 */
export function normalizeBatch(store: ProjectionWriter, req: OtlpRequest, ctx: BatchContext): NormalizeStats {
  const stats: NormalizeStats = { events: 0, duplicates: 0 };
  if (req.signal === 'metrics') return stats;
  const w = new BatchCachedWriter(store);
  const rollups = new RollupAccumulator(ctx.normalizerVersion);
  const seen = new Set<string>();
  const occurrences = new Map<string, number>();
  const apply = (row: ReturnType<typeof logEvent>, span?: { endNanos: string; failed: boolean }) => {
    if (seen.has(row.eventId)) {
      stats.duplicates++;
      return;
    }
    seen.add(row.eventId);
    if (applyEvent(w, row, msOf(row.time), rollups, span)) stats.events++;
    else stats.duplicates++;
  };
  for (const group of req.resources) {
    const res = { attributes: group.resource.attributes, ...(group.schemaUrl ? { schemaUrl: group.schemaUrl } : {}) };
    for (const scope of group.scopes) {
      if (req.signal === 'logs') {
        for (const rec of scope.items as OtlpLogRecord[]) apply(logEvent(ctx, res, rec, occurrences));
        continue;
      }
      for (const span of scope.items as OtlpSpan[]) {
        const row = spanEvent(ctx, res, span);
        const failed = span.status?.code === 2 || row.result === 'error';
        apply(row, row.eventName === 'span.agent.skill.activation' ? { endNanos: span.endTimeUnixNano, failed } : undefined);
        for (const ev of spanCatalogEvents(ctx, res, span)) apply(ev);
      }
    }
  }
  rollups.flush(w);
  w.flush();
  return stats;
}
