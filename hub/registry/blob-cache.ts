import type { BlobStore } from '../storage/ports.js';

/**
 * A small LRU in front of the blob store for hot downloads. Blobs are content-addressed and never
 * change, so a cached copy can never be stale. Bounded in total bytes; big blobs bypass it.
 */
export class BlobCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(
    private readonly store: BlobStore,
    private readonly maxBytes = 64 * 1024 * 1024,
    private readonly maxEntryBytes = 8 * 1024 * 1024,
  ) {}

  async get(sha256: string): Promise<Buffer | undefined> {
    const hit = this.entries.get(sha256);
    if (hit) {
      this.entries.delete(sha256); // re-insert: Map order is the recency order
      this.entries.set(sha256, hit);
      return hit;
    }
    const bytes = await this.store.get(sha256);
    if (bytes && bytes.length <= this.maxEntryBytes && !this.entries.has(sha256)) {
      this.entries.set(sha256, bytes);
      this.bytes += bytes.length;
      for (const [key, value] of this.entries) {
        if (this.bytes <= this.maxBytes) break;
        this.entries.delete(key);
        this.bytes -= value.length;
      }
    }
    return bytes;
  }
}
