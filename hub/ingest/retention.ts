import type { ExpiredEvent, RawBatchRecord, TelemetryStorage } from '../storage/telemetry-ports.js';
import type { BlobGuard } from './blob-guard.js';
import { RETENTION_DAYS } from './limits.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How old an unreferenced blob or temp file must be before the sweeper takes it for an orphan.
 * The blob guard already keeps the sweeper away from an ingest between its put and its admit;
 * the grace period is a second, independent margin (an admit takes milliseconds).
 */
export const ORPHAN_GRACE_MS = 60 * 60 * 1000;

export interface SweepResult {
  /** raw batch records past retention */
  batches: number;
  /** their blobs, once no other record referenced them */
  blobs: number;
  /** blobs no record referenced (a crash between the blob write and the admit) */
  orphanBlobs: number;
  /** temp files of blob writes that never finished */
  tempFiles: number;
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
 * The normalized events a raw batch leaves behind when it is swept (hub/normalize/expire.ts), or
 * undefined when they cannot be made (its bytes do not decode).
 */
export type KeepFacts = (record: RawBatchRecord) => Promise<readonly ExpiredEvent[] | undefined>;

/**
 * Deletes raw batches older than their account's current retention tier (90 days free, 365 paid;
 * an upgrade therefore extends what is still retained, a downgrade shortens it) and the blobs no
 * other batch references. Only the raw bytes go: projections are derived facts and stay, and with
 * `keep` a swept batch's normalized events are kept as an expired batch (RawBatchStore.expire),
 * which every later rebuild applies in the batch's place, so no rebuild loses swept history. A
 * batch that normalizes to no events (metrics) leaves nothing. Two batches are never deleted,
 * whatever their receipt time says:
 *
 * - a batch still in the normalization queue: it was acknowledged and is not normalized yet, so
 *   deleting it would lose it (the worker dequeues a batch whose raw bytes are gone);
 * - a batch this process received, while the process has not been up as long as the retention
 *   period: it cannot be that old. Receipt times come from the wall clock, and a clock that was
 *   behind when the batch arrived (an RTC reset before NTP) and was corrected since would
 *   otherwise make a batch received seconds ago look months old. (A stamp made by a wrong clock
 *   in an earlier run cannot be told from a real one; it is swept by its stamp.)
 */
export async function sweepRawBatches(telemetry: TelemetryStorage, guard: BlobGuard, nowMs: number, run?: ReceiptRun, keep?: KeepFacts): Promise<SweepResult> {
  const result: SweepResult = { batches: 0, blobs: 0, orphanBlobs: 0, tempFiles: 0 };
  // under the guard of the hash, so an ingest of the same bytes (another account's, sharing the
  // blob) is either admitted before the check, and keeps the blob, or puts it after the delete
  const deleteIfUnreferenced = (sha256: string) =>
    guard.hold(sha256, async () => {
      telemetry.freshReads();
      if (telemetry.rawBatches.blobReferenced(sha256)) return false;
      await telemetry.rawBlobs.delete(sha256);
      return true;
    });
  const shortest = Math.min(...Object.values(RETENTION_DAYS));
  const candidates = [...telemetry.rawBatches.listReceivedBefore(nowMs - shortest * DAY_MS)];
  // taken after the candidates: a batch queued meanwhile was received after them, so it is not one of them
  const queued = new Set(candidates.length ? telemetry.queue.peek(telemetry.queue.depth()).map((q) => `${q.accountId}\u0000${q.batchId}`) : []);
  for (const record of candidates) {
    const retentionMs = RETENTION_DAYS[telemetry.settings.get(record.accountId)?.retentionTier ?? 'free'] * DAY_MS;
    if (record.receivedAtMs >= nowMs - retentionMs) continue;
    if (queued.has(`${record.accountId}\u0000${record.id}`)) continue;
    if (run && record.receivedAtMs >= run.earliestReceiptMs && run.uptimeMs < retentionMs) continue;
    const events = await keep?.(record);
    if (events?.length) await telemetry.rawBatches.expire(record, events, new Date(nowMs).toISOString());
    else await telemetry.rawBatches.delete(record.accountId, record.id);
    result.batches++;
    if (await deleteIfUnreferenced(record.sha256)) result.blobs++;
  }
  await sweepOrphans(telemetry, guard, nowMs - ORPHAN_GRACE_MS, deleteIfUnreferenced, result);
  return result;
}

/**
 * Blobs no record points at and temp files of unfinished writes, older than `cutoffMs` (file
 * mtimes): what a crash between the blob write and the LMDB admit leaves when the client never
 * retries. The retention pass only walks records, so nothing else would ever remove them.
 */
async function sweepOrphans(telemetry: TelemetryStorage, guard: BlobGuard, cutoffMs: number, deleteIfUnreferenced: (sha256: string) => Promise<boolean>, result: SweepResult): Promise<void> {
  for await (const blob of telemetry.rawBlobs.list()) {
    if (blob.mtimeMs >= cutoffMs) continue;
    if (await deleteIfUnreferenced(blob.sha256)) result.orphanBlobs++;
  }
  for await (const temp of telemetry.rawBlobs.listTemp()) {
    if (temp.mtimeMs >= cutoffMs) continue;
    // a put in flight writes its temp file under the guard of its hash
    await guard.hold(temp.sha256, () => telemetry.rawBlobs.deleteTemp(temp.name));
    result.tempFiles++;
  }
}
