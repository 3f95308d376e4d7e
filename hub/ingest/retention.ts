import type { TelemetryStorage } from '../storage/telemetry-ports.js';
import { RETENTION_DAYS } from './limits.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface SweepResult {
  batches: number;
  blobs: number;
}

/**
 * What the sweeper knows about the process that stamped receipts, to tell a batch that is old
 * from one stamped by a wall clock that was wrong (see sweepRawBatches).
 */
export interface ReceiptRun {
  /** the earliest receipt stamp this process issued (or the wall clock at its start): stamps from here on are its own */
  earliestReceiptMs: number;
  /** how long this process has been running, on a clock that wall-clock corrections do not move */
  uptimeMs: number;
}

/**
 * Deletes raw batches older than their account's current retention tier (90 days free, 365 paid;
 * an upgrade therefore extends what is still retained, a downgrade shortens it) and the blobs no
 * other batch references. Projections are derived facts and stay; a later rebuild covers the
 * retained window only. Two batches are never deleted, whatever their receipt time says:
 *
 * - a batch still in the normalization queue: it was acknowledged and is not normalized yet, so
 *   deleting it would lose it (the worker dequeues a batch whose raw bytes are gone);
 * - a batch this process received, while the process has not been up as long as the retention
 *   period: it cannot be that old. Receipt times come from the wall clock, and a clock that was
 *   behind when the batch arrived (an RTC reset before NTP) and was corrected since would
 *   otherwise make a batch received seconds ago look months old. (A stamp made by a wrong clock
 *   in an earlier run cannot be told from a real one; it is swept by its stamp.)
 */
export async function sweepRawBatches(telemetry: TelemetryStorage, nowMs: number, run?: ReceiptRun): Promise<SweepResult> {
  const result: SweepResult = { batches: 0, blobs: 0 };
  const shortest = Math.min(...Object.values(RETENTION_DAYS));
  const candidates = [...telemetry.rawBatches.listReceivedBefore(nowMs - shortest * DAY_MS)];
  if (candidates.length === 0) return result;
  // taken after the candidates: a batch queued meanwhile was received after them, so it is not one of them
  const queued = new Set(telemetry.queue.peek(telemetry.queue.depth()).map((q) => `${q.accountId}\u0000${q.batchId}`));
  for (const record of candidates) {
    const retentionMs = RETENTION_DAYS[telemetry.settings.get(record.accountId)?.retentionTier ?? 'free'] * DAY_MS;
    if (record.receivedAtMs >= nowMs - retentionMs) continue;
    if (queued.has(`${record.accountId}\u0000${record.id}`)) continue;
    if (run && record.receivedAtMs >= run.earliestReceiptMs && run.uptimeMs < retentionMs) continue;
    await telemetry.rawBatches.delete(record.accountId, record.id);
    result.batches++;
    if (!telemetry.rawBatches.blobReferenced(record.sha256)) {
      await telemetry.rawBlobs.delete(record.sha256);
      result.blobs++;
    }
  }
  return result;
}
