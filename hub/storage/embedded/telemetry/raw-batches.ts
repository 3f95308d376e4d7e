import type { Database, RootDatabase } from 'lmdb';
import type { ExpiredBatch, ExpiredEvent, ExpiredFactStore, NormalizationQueue, QueueItem, RawBatchRecord, RawBatchStore } from '../../telemetry-ports.js';

type Key = (string | number)[];

/** Sub-databases of the raw-batch index and the normalization queue. */
export interface RawBatchDbs {
  batches: Database<RawBatchRecord, Key>;
  byTime: Database<null, Key>;
  bySha: Database<null, Key>;
  queue: Database<QueueItem, number>;
  meta: Database<unknown, string>;
  /** expired batches: [accountId, batchId] -> ExpiredBatch */
  expired: Database<ExpiredBatch, Key>;
  /** their kept events: [accountId, batchId] -> ExpiredEvent[] (apart, so listing the batches reads no events) */
  expiredEvents: Database<ExpiredEvent[], Key>;
}

/**
 * The receipt-order key of a batch: its receipt time, then its admission sequence, so batches
 * stamped in the same millisecond list in the order they were admitted (a rebuild does not use
 * this order: it replays by the sequence alone, see hub/normalize/rebuild.ts replayOrder).
 * Batches admitted before the sequence was recorded keep their time-account-id key.
 */
const timeKey = (r: RawBatchRecord): Key => (r.receiptSeq === undefined ? [r.receivedAtMs, r.accountId, r.id] : [r.receivedAtMs, r.receiptSeq, r.accountId, r.id]);

/**
 * Raw batch records (the bytes live in the raw blob directory) indexed by receipt time and blob
 * hash, and the LMDB-backed normalization queue. Admission writes the record and the queue item
 * in one transaction.
 */
export class LmdbRawBatches implements RawBatchStore, NormalizationQueue {
  constructor(
    private readonly root: RootDatabase,
    private readonly dbs: RawBatchDbs,
  ) {}

  get(accountId: string, batchId: string) {
    return this.dbs.batches.get([accountId, batchId]);
  }

  admit(record: RawBatchRecord, alongside?: (stored: boolean) => void): Promise<{ stored: boolean; seq?: number }> {
    const { batches, byTime, bySha, queue, meta } = this.dbs;
    return this.root.transaction(() => {
      if (batches.doesExist([record.accountId, record.id])) {
        alongside?.(false);
        return { stored: false };
      }
      alongside?.(true);
      const seq = ((meta.get('queueSeq') as number | undefined) ?? 0) + 1;
      void meta.put('queueSeq', seq);
      void batches.put([record.accountId, record.id], { ...record, receiptSeq: seq });
      void byTime.put(timeKey({ ...record, receiptSeq: seq }), null);
      void bySha.put([record.sha256, record.accountId, record.id], null);
      void queue.put(seq, { seq, accountId: record.accountId, batchId: record.id });
      return { stored: true, seq };
    });
  }

  *listByReceipt(): Iterable<RawBatchRecord> {
    yield* this.listReceivedBefore(Number.MAX_SAFE_INTEGER);
  }

  *listReceivedBefore(ms: number): Iterable<RawBatchRecord> {
    for (const key of this.dbs.byTime.getKeys({ start: [0], end: [ms] })) {
      const [accountId, id] = key.slice(-2) as [string, string];
      const rec = this.dbs.batches.get([accountId, id]);
      if (rec) yield rec;
    }
  }

  async delete(accountId: string, batchId: string): Promise<void> {
    await this.root.transaction(() => {
      this.remove(accountId, batchId);
    });
  }

  async expire(record: RawBatchRecord, events: readonly ExpiredEvent[], sweptAt: string): Promise<void> {
    const { expired, expiredEvents } = this.dbs;
    await this.root.transaction(() => {
      const rec = this.remove(record.accountId, record.id);
      if (!rec) return;
      const batch: ExpiredBatch = {
        id: rec.id, accountId: rec.accountId, deviceId: rec.deviceId, signal: rec.signal, receivedAt: rec.receivedAt, receivedAtMs: rec.receivedAtMs,
        ...(rec.receiptSeq !== undefined ? { receiptSeq: rec.receiptSeq } : {}), records: rec.records, events: events.length, sweptAt,
      };
      expired.putSync([rec.accountId, rec.id], batch);
      expiredEvents.putSync([rec.accountId, rec.id], [...events]);
    });
  }

  /** Inside a write transaction: removes a batch's record and its index entries; the record, if there was one. */
  private remove(accountId: string, batchId: string): RawBatchRecord | undefined {
    const { batches, byTime, bySha } = this.dbs;
    const rec = batches.get([accountId, batchId]);
    if (!rec) return undefined;
    batches.removeSync([accountId, batchId]);
    byTime.removeSync(timeKey(rec));
    bySha.removeSync([rec.sha256, accountId, batchId]);
    return rec;
  }

  blobReferenced(sha256: string): boolean {
    for (const _ of this.dbs.bySha.getKeys({ start: [sha256], end: [sha256, '\uffff'], limit: 1 })) return true;
    return false;
  }

  peek(limit: number): QueueItem[] {
    return [...this.dbs.queue.getRange({ limit })].map((e) => e.value);
  }

  depth(): number {
    return this.dbs.queue.getCount();
  }

  depthByAccount(): Map<string, number> {
    const out = new Map<string, number>();
    for (const { value } of this.dbs.queue.getRange()) out.set(value.accountId, (out.get(value.accountId) ?? 0) + 1);
    return out;
  }
}

/** The kept facts of swept raw batches (written by LmdbRawBatches.expire). */
export class LmdbExpiredFacts implements ExpiredFactStore {
  constructor(private readonly dbs: Pick<RawBatchDbs, 'expired' | 'expiredEvents'>) {}

  *list(): Iterable<ExpiredBatch> {
    for (const { value } of this.dbs.expired.getRange()) yield value;
  }

  get(accountId: string, batchId: string): ExpiredBatch | undefined {
    return this.dbs.expired.get([accountId, batchId]);
  }

  events(accountId: string, batchId: string): ExpiredEvent[] | undefined {
    return this.dbs.expiredEvents.get([accountId, batchId]);
  }
}
