import type { TelemetryStorage } from '../storage/telemetry-ports.js';
import { RETENTION_DAYS } from './limits.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface SweepResult {
  batches: number;
  blobs: number;
}

/**
 * Deletes raw batches older than their account's current retention tier (90 days free, 365 paid;
 * an upgrade therefore extends what is still retained, a downgrade shortens it) and the blobs no
 * other batch references. Projections are derived facts and stay; a later rebuild covers the
 * retained window only.
 */
export async function sweepRawBatches(telemetry: TelemetryStorage, nowMs: number): Promise<SweepResult> {
  const result: SweepResult = { batches: 0, blobs: 0 };
  const shortest = Math.min(...Object.values(RETENTION_DAYS));
  const candidates = [...telemetry.rawBatches.listReceivedBefore(nowMs - shortest * DAY_MS)];
  for (const record of candidates) {
    const tier = telemetry.settings.get(record.accountId)?.retentionTier ?? 'free';
    if (record.receivedAtMs >= nowMs - RETENTION_DAYS[tier] * DAY_MS) continue;
    await telemetry.rawBatches.delete(record.accountId, record.id);
    result.batches++;
    if (!telemetry.rawBatches.blobReferenced(record.sha256)) {
      await telemetry.rawBlobs.delete(record.sha256);
      result.blobs++;
    }
  }
  return result;
}
