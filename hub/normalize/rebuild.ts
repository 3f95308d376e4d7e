import type { GenerationInfo, RawBatchRecord, TelemetryStorage } from '../storage/telemetry-ports.js';
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
  const generation = projections.lastGeneration() + 1;
  const previous = projections.active();
  await worker.pause();
  const result: RebuildResult = { generation: { generation, normalizerVersion, builtAt: '' }, batches: 0, events: 0, duplicates: 0, missing: 0 };
  try {
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
    await projections.drop(generation);
    throw e;
  } finally {
    worker.resume();
  }
  if (previous && previous.generation !== generation) await projections.drop(previous.generation);
  return result;
}
