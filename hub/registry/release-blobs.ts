import { BlobGuard } from '../ingest/blob-guard.js';
import type { BlobStore, HubStorage, RegistryStore } from '../storage/ports.js';
import { sha256Hex } from './artifacts.js';

/**
 * How old an unreferenced registry blob or temp file must be before a sweep takes it for an
 * orphan. Publishes in flight are pinned (below) and never swept whatever their age; the grace
 * period is a second, independent margin, as for raw telemetry blobs.
 */
export const REGISTRY_ORPHAN_GRACE_MS = 60 * 60 * 1000;
/** A publish starts a background sweep when the last one began longer ago than this (or never ran in this process). */
export const REGISTRY_SWEEP_INTERVAL_MS = 60 * 60 * 1000;

export interface RegistrySweepResult {
  /** blobs no release reads, older than the grace period: left by a publish that crashed, or whose clean-up failed */
  orphanBlobs: number;
  /** temp files of blob writes that never finished */
  tempFiles: number;
}

/** The blobs one publish wrote: pinned until `end`, which removes them unless the release was created. */
export interface BlobStaging {
  /** stores `bytes` (content-addressed) for this publish and returns their sha256 */
  put(bytes: Uint8Array): Promise<string>;
  /**
   * Ends the publish. Refused (`committed` false): every blob it wrote that no release reads and
   * no other publish in flight has written is deleted, so a 409, 413 or lost race stores nothing.
   * Returns how many were deleted; a failed delete is left to the sweeper.
   */
  end(committed: boolean): Promise<number>;
}

/**
 * The registry's blob directory seen by the one hub process that publishes into it (hub/serve.ts
 * locks the data directory). Blobs are shared by content between releases, so a blob a refused
 * publish wrote may be one another publish, in flight, just reused; the guard serializes per hash
 * a publish's write and pin with the "no release reads it, nothing pins it" check and delete of a
 * clean-up or sweep, and a pin lasts until that publish's release is created or refused.
 */
export class ReleaseBlobs {
  private readonly guard = new BlobGuard();
  private readonly pins = new Map<string, number>();
  private lastSweepMs: number | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly blobs: BlobStore,
    private readonly registry: RegistryStore,
  ) {}

  begin(): BlobStaging {
    const written = new Set<string>();
    let ended = false;
    return {
      put: async (bytes) => {
        if (ended) throw new Error('the publish already ended');
        const sha256 = sha256Hex(bytes);
        await this.guard.hold(sha256, async () => {
          if (!written.has(sha256)) {
            written.add(sha256);
            this.pins.set(sha256, (this.pins.get(sha256) ?? 0) + 1);
          }
          await this.blobs.put(bytes, sha256);
        });
        return sha256;
      },
      end: async (committed) => {
        if (ended) return 0;
        ended = true;
        for (const sha256 of written) this.unpin(sha256);
        if (committed) return 0;
        let deleted = 0;
        for (const sha256 of written) {
          // best effort: a blob left behind is an orphan the sweeper removes later
          if (await this.deleteIfUnused(sha256).catch(() => false)) deleted++;
        }
        return deleted;
      },
    };
  }

  /**
   * Deletes blobs no release reads and temp files of unfinished writes, older than the grace
   * period (file mtimes): what a hub that crashed mid-publish left, which no clean-up will reach.
   */
  async sweep(nowMs: number = Date.now()): Promise<RegistrySweepResult> {
    const cutoffMs = nowMs - REGISTRY_ORPHAN_GRACE_MS;
    const result: RegistrySweepResult = { orphanBlobs: 0, tempFiles: 0 };
    for await (const blob of this.blobs.list()) {
      if (blob.mtimeMs >= cutoffMs) continue;
      if (await this.deleteIfUnused(blob.sha256)) result.orphanBlobs++;
    }
    for await (const temp of this.blobs.listTemp()) {
      if (temp.mtimeMs >= cutoffMs) continue;
      // a put in flight writes its temp file under the guard of its hash
      await this.guard.hold(temp.sha256, () => this.blobs.deleteTemp(temp.name));
      result.tempFiles++;
    }
    return result;
  }

  /**
   * Starts a sweep in the background when none ran in the last REGISTRY_SWEEP_INTERVAL_MS: a
   * publish calls it, so the first publish after a restart collects what a crash left (once past
   * the grace period), and orphans never outgrow an hour of publishing.
   */
  sweepIfDue(nowMs: number = Date.now()): void {
    if (this.running || (this.lastSweepMs !== undefined && nowMs - this.lastSweepMs < REGISTRY_SWEEP_INTERVAL_MS)) return;
    this.lastSweepMs = nowMs;
    this.running = this.sweep(nowMs)
      .catch((e) => console.error('hub registry: blob sweep failed:', e))
      .finally(() => (this.running = undefined));
  }

  /** Resolves when no background sweep runs (tests). */
  async idle(): Promise<void> {
    await this.running;
  }

  private unpin(sha256: string): void {
    const n = (this.pins.get(sha256) ?? 0) - 1;
    if (n > 0) this.pins.set(sha256, n);
    else this.pins.delete(sha256);
  }

  private deleteIfUnused(sha256: string): Promise<boolean> {
    return this.guard.hold(sha256, async () => {
      if (this.pins.has(sha256) || this.registry.blobReferenced(sha256)) return false;
      await this.blobs.delete(sha256);
      return true;
    });
  }
}

const perStore = new WeakMap<BlobStore, ReleaseBlobs>();

/** The ReleaseBlobs of `storage`'s registry blob directory: one per store, shared by every request of the process. */
export function releaseBlobs(storage: Pick<HubStorage, 'blobs' | 'registry'>): ReleaseBlobs {
  let found = perStore.get(storage.blobs);
  if (!found) {
    found = new ReleaseBlobs(storage.blobs, storage.registry);
    perStore.set(storage.blobs, found);
  }
  return found;
}
