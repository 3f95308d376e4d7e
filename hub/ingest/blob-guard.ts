/**
 * Serializes, per raw blob hash, the steps that must not interleave: an ingest's blob put and
 * LMDB admit, and the sweeper's "no record references it" check and delete. Raw blobs are shared
 * by content across accounts and devices, and a put skips bytes already on disk; without this, a
 * sweep deciding between another account's put and admit deletes the blob its batch was just
 * acknowledged with. One hub process owns the raw blob directory (the normalizer thread only
 * reads it), so an in-process lock covers every writer: startHub (hub/serve.ts) takes a process
 * lock on the data directory, and a second hub on it fails with SF_E_CONFLICT.
 */
export class BlobGuard {
  private readonly tails = new Map<string, Promise<void>>();

  async hold<T>(sha256: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(sha256);
    let release!: () => void;
    const done = new Promise<void>((r) => (release = r));
    const tail = before ? before.then(() => done) : done;
    this.tails.set(sha256, tail);
    try {
      await before;
      return await fn();
    } finally {
      release();
      if (this.tails.get(sha256) === tail) this.tails.delete(sha256);
    }
  }
}
