import type { GenerationInfo, ProjectionStore, RawBatchRecord, TelemetryStorage } from '../storage/telemetry-ports.js';
import { normalizeBatch } from './normalize-batch.js';
import { batchContext, type Normalizer, type RawBatchLoader } from './worker.js';

export interface RebuildResult {
  generation: GenerationInfo;
  batches: number;
  events: number;
  duplicates: number;
  /** batches whose raw bytes are gone (swept past retention) or no longer decode */
  missing: number;
}

/**
 * The batches in the order the live normalizer applied them: the queue's admission sequence
 * (receiptSeq), a total order that never changes. Receipt times are wall-clock stamps taken
 * before admission, so two batches can be stamped in one order and admitted in the other, and
 * where an event id repeats with other content the first applied wins. Batches stored before
 * the sequence was recorded were all admitted before any that has one: they come first, in
 * receipt order.
 */
export function replayOrder(records: Iterable<RawBatchRecord>): RawBatchRecord[] {
  const unsequenced: RawBatchRecord[] = [];
  const sequenced: RawBatchRecord[] = [];
  for (const r of records) (r.receiptSeq === undefined ? unsequenced : sequenced).push(r);
  return [...unsequenced, ...sequenced.sort((a, b) => a.receiptSeq! - b.receiptSeq!)];
}

/**
 * Drops every projection generation that is neither the live one nor `building`: what a rebuild
 * interrupted by a crash or a restart left behind (a finished rebuild drops the generation it
 * replaced itself). Generation numbers are never reused, so each one below the last is either
 * live or garbage; dropping an empty one costs a few empty range reads.
 */
export async function dropStaleGenerations(projections: ProjectionStore, building?: number): Promise<number[]> {
  const live = projections.active()?.generation;
  const dropped: number[] = [];
  for (let g = 1; g <= projections.lastGeneration(); g++) {
    if (g === live || g === building) continue;
    await projections.drop(g);
    dropped.push(g);
  }
  return dropped;
}

/**
 * Replays every retained raw batch, in admission order (replayOrder), into a fresh projection generation with the
 * given normalizer version, then makes it the live one and drops the old generation. Queries keep
 * reading the old generation until the switch. The worker is paused meanwhile; batches queued
 * during the rebuild are normalized into the new generation afterwards (dedupe skips the ones the
 * replay already applied).
 */
export async function rebuildProjections(
  telemetry: TelemetryStorage,
  worker: Pick<Normalizer, 'pause' | 'resume'>,
  load: RawBatchLoader,
  normalizerVersion: string,
  now: () => number = Date.now,
): Promise<RebuildResult> {
  const projections = telemetry.projections;
  await worker.pause();
  let generation = 0;
  let previous: GenerationInfo | undefined;
  const result: RebuildResult = { generation: { generation, normalizerVersion, builtAt: '' }, batches: 0, events: 0, duplicates: 0, missing: 0 };
  try {
    // a generation an interrupted rebuild left would otherwise stay on disk for good
    await dropStaleGenerations(projections);
    generation = result.generation.generation = projections.lastGeneration() + 1;
    previous = projections.active();
    for (const record of replayOrder(telemetry.rawBatches.listByReceipt())) {
      const request = await load(record);
      if (!request) {
        result.missing++;
        continue;
      }
      const ctx = batchContext(telemetry, record, normalizerVersion);
      const stats = await projections.write(generation, (w) => normalizeBatch(w, request, ctx));
      result.batches++;
      result.events += stats.events;
      result.duplicates += stats.duplicates;
    }
    result.generation.builtAt = new Date(now()).toISOString();
    await projections.setActive(result.generation);
  } catch (e) {
    if (generation) await projections.drop(generation);
    throw e;
  } finally {
    worker.resume();
  }
  if (previous && previous.generation !== generation) await projections.drop(previous.generation);
  return result;
}
