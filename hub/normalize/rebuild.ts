import type { ExpiredBatch, GenerationInfo, ProjectionReader, ProjectionStore, RawBatchRecord, TelemetryStorage } from '../storage/telemetry-ports.js';
import type { ObservationEventRow } from '../projections/rows.js';
import { carriedSpanEnd } from './expire.js';
import { applyEvents, normalizeBatch, type BatchEvent } from './normalize-batch.js';
import { batchContext, type Normalizer, type RawBatchLoader } from './worker.js';

export interface RebuildResult {
  generation: GenerationInfo;
  /** raw batches replayed from their bytes */
  batches: number;
  /** events those batches applied */
  events: number;
  /** events skipped as already stored, of the replayed and the expired batches */
  duplicates: number;
  /**
   * batches with a raw batch record that could not be replayed: their bytes are gone or no longer
   * decode (each is logged with its id). What the previous generation held of them is carried over.
   */
  missing: number;
  /** swept batches whose kept facts (ExpiredFactStore) were applied in their place in the replay order */
  expired: { batches: number; events: number };
  /**
   * events copied from the previous generation because nothing else could reproduce them: of
   * batches swept before their facts were kept, and of the `missing` batches
   */
  carried: { batches: number; events: number };
}

/** Where a batch is in the replay order: a raw batch record or what a sweep kept of one. */
interface Positioned {
  accountId: string;
  id: string;
  receivedAtMs: number;
  receiptSeq?: number;
}

const byReceipt = (a: Positioned, b: Positioned): number =>
  a.receivedAtMs - b.receivedAtMs || (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The batches in the order the live normalizer applied them: the queue's admission sequence
 * (receiptSeq), a total order that never changes. Receipt times are wall-clock stamps taken
 * before admission, so two batches can be stamped in one order and admitted in the other, and
 * where an event id repeats with other content the first applied wins. Batches stored before
 * the sequence was recorded were all admitted before any that has one: they come first, in
 * receipt order (time, account, id, as RawBatchStore.listByReceipt lists them).
 */
export function replayOrder<T extends Positioned>(batches: Iterable<T>): T[] {
  const unsequenced: T[] = [];
  const sequenced: T[] = [];
  for (const r of batches) (r.receiptSeq === undefined ? unsequenced : sequenced).push(r);
  return [...unsequenced.sort(byReceipt), ...sequenced.sort((a, b) => a.receiptSeq! - b.receiptSeq!)];
}

const batchKey = (accountId: string, batchId: string) => `${accountId}\u0000${batchId}`;

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

/** Events copied per write transaction when carrying rows over from the previous generation. */
const CARRY_CHUNK = 1000;

/**
 * Applies to `generation` the events of the previous generation that `wanted` picks (see
 * RebuildResult.carried), in transactions of CARRY_CHUNK events. The rows are applied as stored;
 * an activation span gets back its end (carriedSpanEnd).
 */
async function carryOver(
  projections: ProjectionStore,
  previous: ProjectionReader,
  generation: number,
  normalizerVersion: string,
  wanted: (row: ObservationEventRow) => boolean,
  into: RebuildResult['carried'],
): Promise<void> {
  const batches = new Set<string>();
  let chunk: BatchEvent[] = [];
  const flush = async () => {
    const events = chunk;
    chunk = [];
    if (events.length) into.events += (await projections.write(generation, (w) => applyEvents(w, events, normalizerVersion))).events;
  };
  // a range read keeps its snapshot across the awaits; the previous generation does not change meanwhile (the worker is paused)
  for (const row of previous.allEvents()) {
    if (!wanted(row)) continue;
    batches.add(batchKey(row.accountId, row.rawBatchId));
    const span = carriedSpanEnd(previous, row);
    chunk.push(span ? { row, span } : { row });
    if (chunk.length >= CARRY_CHUNK) await flush();
  }
  await flush();
  into.batches += batches.size;
}

type Replayed = { raw: RawBatchRecord; expired?: undefined } | { expired: ExpiredBatch; raw?: undefined };

/**
 * Rebuilds the projections into a fresh generation with the given normalizer version, then makes
 * it the live one and drops the old generation. Queries keep reading the old generation until the
 * switch. The worker is paused meanwhile; batches queued during the rebuild are normalized into
 * the new generation afterwards (dedupe skips the ones the replay already applied).
 *
 * Nothing the live projections hold is lost for want of raw bytes:
 * 1. events of batches that have neither a raw batch record nor kept facts (swept by a hub that
 *    did not keep them) are copied from the previous generation first, as they are the oldest;
 * 2. every retained raw batch is replayed, and every swept batch's kept facts applied, in
 *    admission order (replayOrder); a raw batch that cannot be read is counted in `missing`,
 *    logged, and skipped;
 * 3. the events the previous generation holds of those missing batches are copied last.
 * Failures recorded for batches the rebuild replayed are cleared from the health view.
 */
export async function rebuildProjections(
  telemetry: TelemetryStorage,
  worker: Pick<Normalizer, 'pause' | 'resume'>,
  load: RawBatchLoader,
  normalizerVersion: string,
  now: () => number = Date.now,
  log: (message: string) => void = (m) => console.error(`hub telemetry: ${m}`),
): Promise<RebuildResult> {
  const projections = telemetry.projections;
  await worker.pause();
  let generation = 0;
  let previous: GenerationInfo | undefined;
  const result: RebuildResult = {
    generation: { generation, normalizerVersion, builtAt: '' }, batches: 0, events: 0, duplicates: 0, missing: 0, expired: { batches: 0, events: 0 }, carried: { batches: 0, events: 0 },
  };
  const replayed = new Set<string>();
  try {
    // a generation an interrupted rebuild left would otherwise stay on disk for good
    await dropStaleGenerations(projections);
    generation = result.generation.generation = projections.lastGeneration() + 1;
    previous = projections.active();
    const prior = previous && projections.reader(previous.generation);
    const raw = [...telemetry.rawBatches.listByReceipt()];
    const expired = [...telemetry.expired.list()];
    const known = new Set([...raw, ...expired].map((b) => batchKey(b.accountId, b.id)));
    if (prior) await carryOver(projections, prior, generation, normalizerVersion, (row) => !known.has(batchKey(row.accountId, row.rawBatchId)), result.carried);

    const missing = new Set<string>();
    const order = replayOrder<Positioned & Replayed>([...raw.map((r) => ({ ...r, raw: r })), ...expired.map((b) => ({ ...b, expired: b }))]);
    for (const batch of order) {
      if (batch.expired) {
        const events = telemetry.expired.events(batch.accountId, batch.id) ?? [];
        const stats = await projections.write(generation, (w) => applyEvents(w, events, normalizerVersion));
        result.expired.batches++;
        result.expired.events += stats.events;
        result.duplicates += stats.duplicates;
        continue;
      }
      const record = batch.raw;
      let request;
      let unreadable: string;
      try {
        request = await load(record);
        unreadable = 'its raw bytes are gone';
      } catch (e) {
        unreadable = `its raw bytes do not decode: ${e instanceof Error ? e.message : String(e)}`;
      }
      if (!request) {
        log(`rebuild: skipped raw batch ${record.id} of account ${record.accountId} (what the previous generation holds of it is carried over): ${unreadable}`);
        missing.add(batchKey(record.accountId, record.id));
        result.missing++;
        continue;
      }
      const ctx = batchContext(telemetry, record, normalizerVersion);
      const stats = await projections.write(generation, (w) => normalizeBatch(w, request, ctx));
      result.batches++;
      result.events += stats.events;
      result.duplicates += stats.duplicates;
      replayed.add(batchKey(record.accountId, record.id));
    }
    if (prior && missing.size) await carryOver(projections, prior, generation, normalizerVersion, (row) => missing.has(batchKey(row.accountId, row.rawBatchId)), result.carried);
    result.generation.builtAt = new Date(now()).toISOString();
    await projections.setActive(result.generation);
  } catch (e) {
    if (generation) await projections.drop(generation);
    throw e;
  } finally {
    worker.resume();
  }
  if (previous && previous.generation !== generation) await projections.drop(previous.generation);
  await telemetry.health.clearNormalizationFailures(telemetry.health.normalizationFailures().filter((f) => replayed.has(batchKey(f.accountId, f.batchId))));
  return result;
}
