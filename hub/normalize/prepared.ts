import { INDEX_ONLY_EVENTS, indexOnly } from '../projections/apply.js';
import type { ActivationResult, ObservationEventRow } from '../projections/rows.js';
import type { ProjectionStore } from '../storage/telemetry-ports.js';
import type { BatchEvent } from './normalize-batch.js';

/**
 * A batch normalized ahead on the HTTP thread for the normalizer thread: each event row already
 * in the events store's encoding, back to back in one buffer that moves between threads without
 * a copy. The normalizer thread decodes the rows it folds (decoding is cheaper than building them
 * again; of the events it only indexes, just their heads) and stores the encoded bytes as they
 * are, so it only deduplicates, folds and writes.
 */
export interface PreparedEvents {
  /** the normalizer version the rows were stamped with; the normalizer redoes the batch from its raw bytes when the live one differs */
  normalizerVersion: string;
  /** the encoded rows back to back; row i ends at `ends[i]` */
  values: Uint8Array;
  ends: Uint32Array;
  /** activation spans: [event index, end time (ns), agent.skill.result] */
  spans: [number, string, ActivationResult][];
}

export function isPrepared(batch: object): batch is PreparedEvents {
  return (batch as PreparedEvents).values instanceof Uint8Array;
}

export function prepareEvents(projections: ProjectionStore, events: BatchEvent[], normalizerVersion: string): PreparedEvents {
  const { values, ends } = projections.encodeEvents(events.map((e) => e.row));
  const spans: PreparedEvents['spans'] = [];
  events.forEach((e, i) => e.span && spans.push([i, e.span.endNanos, e.span.result]));
  return { normalizerVersion, values, ends, spans };
}

/**
 * The events of a prepared batch (rows decoded by the store) and, for event i, its encoded row.
 * Events the normalizer only indexes (apply.ts `indexOnly`) get just their head decoded: the
 * stored row is the encoded one, and nothing else of them is read.
 */
export function openPrepared(projections: ProjectionStore, p: PreparedEvents): { events: BatchEvent[]; encoded(i: number): Uint8Array } {
  const encoded = (i: number) => p.values.subarray(i === 0 ? 0 : p.ends[i - 1], p.ends[i]);
  const events: BatchEvent[] = Array.from(p.ends, (_, i) => {
    const bytes = encoded(i);
    // the name is read first: other events are decoded whole right away
    const head = projections.decodeEventHead(bytes, (name) => INDEX_ONLY_EVENTS.has(name));
    if (head && indexOnly(head)) return { row: head as ObservationEventRow, full: () => projections.decodeEvent(bytes) };
    return { row: projections.decodeEvent(bytes) };
  });
  for (const [i, endNanos, result] of p.spans) events[i].span = { endNanos, result };
  return { events, encoded };
}
