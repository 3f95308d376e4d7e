import type { ProjectionStore } from '../storage/telemetry-ports.js';
import type { BatchEvent } from './normalize-batch.js';

/**
 * A batch normalized ahead on the HTTP thread for the normalizer thread: each event row already
 * in the events store's encoding, back to back in one buffer that moves between threads without
 * a copy. The normalizer thread decodes the rows it folds (decoding is cheaper than building them
 * again) and stores the encoded bytes as they are, so it only deduplicates, folds and writes.
 */
export interface PreparedEvents {
  /** the normalizer version the rows were stamped with; the normalizer redoes the batch from its raw bytes when the live one differs */
  normalizerVersion: string;
  /** the encoded rows back to back; row i ends at `ends[i]` */
  values: Uint8Array;
  ends: Uint32Array;
  /** activation spans: [event index, end time (ns), failed] */
  spans: [number, string, boolean][];
}

export function isPrepared(batch: object): batch is PreparedEvents {
  return (batch as PreparedEvents).values instanceof Uint8Array;
}

export function prepareEvents(projections: ProjectionStore, events: BatchEvent[], normalizerVersion: string): PreparedEvents {
  const encoded = events.map((e) => projections.encodeEvent(e.row));
  const ends = new Uint32Array(encoded.length);
  let size = 0;
  encoded.forEach((v, i) => (ends[i] = size += v.byteLength));
  const values = new Uint8Array(size);
  encoded.forEach((v, i) => values.set(v, i === 0 ? 0 : ends[i - 1]));
  const spans: PreparedEvents['spans'] = [];
  events.forEach((e, i) => e.span && spans.push([i, e.span.endNanos, e.span.failed]));
  return { normalizerVersion, values, ends, spans };
}

/** The events of a prepared batch (rows decoded by the store) and, for event i, its encoded row. */
export function openPrepared(projections: ProjectionStore, p: PreparedEvents): { events: BatchEvent[]; encoded(i: number): Uint8Array } {
  const encoded = (i: number) => p.values.subarray(i === 0 ? 0 : p.ends[i - 1], p.ends[i]);
  const events: BatchEvent[] = Array.from(p.ends, (_, i) => ({ row: projections.decodeEvent(encoded(i)) }));
  for (const [i, endNanos, failed] of p.spans) events[i].span = { endNanos, failed };
  return { events, encoded };
}
