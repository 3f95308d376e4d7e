import type { OtlpRequest } from '../../core/telemetry/otlp/index.js';
import type { QueueItem, RawBatchRecord, TelemetryStorage } from '../storage/telemetry-ports.js';
import type { BatchContext } from './event.js';
import { applyEvents, normalizeBatch } from './normalize-batch.js';
import { isPrepared, openPrepared, type PreparedEvents } from './prepared.js';
import { recordedLinks, repositoryResolver } from './repository.js';

/** Decodes a stored raw batch back into a request (used after a restart and for rebuilds). */
export type RawBatchLoader = (record: RawBatchRecord) => Promise<OtlpRequest | undefined>;

/** The normalizer as the telemetry service drives it: in this thread (NormalizationWorker) or in a worker thread. */
export interface Normalizer {
  /** gives the normalizer the admitted request of a batch about to be queued (see IngestDeps.handoff) */
  handoff(record: RawBatchRecord, request: OtlpRequest): void;
  /** the batch's queue item is committed (`stored`: wake up) or will not be (forget the batch) */
  queued(record: RawBatchRecord, stored: boolean): void;
  kick(): void;
  /** resolves when the queue is empty and the normalizer idle */
  drain(): Promise<void>;
  /** stops taking batches until `resume` (the current batch finishes first) */
  pause(): Promise<void>;
  resume(): void;
  stop(): Promise<void>;
}

export interface WorkerOptions {
  /** the normalizer version of the live generation */
  normalizerVersion(): string;
  /** the generation new batches are written to */
  generation(): number;
  load: RawBatchLoader;
  /**
   * called with errors the worker survived: a batch that failed and is retried, or one it gave
   * up on (dropped from the queue, recorded in the health view); the message names the batch
   */
  onError(error: unknown): void;
  /** called after a queue item left the queue */
  onDequeued(item: QueueItem): void;
  /** start on handoff (default); when false the queue is only drained by `drain()` */
  auto: boolean;
  /** the wall clock stamped on recorded failures (default Date.now) */
  now?: () => number;
  /**
   * Takes in handoffs already sent to this worker but not yet delivered (the normalizer thread's
   * port), so a queued batch whose rows are on their way is not decoded again from its raw bytes.
   */
  pull?(): void;
}

/**
 * The batch context (server-authoritative identity) of a raw batch: its repositories resolve as
 * they did when the hub received it (RawBatchRecord.repositories), so live normalization and a
 * rebuild agree; batches stored before that was recorded resolve through the current links.
 */
export function batchContext(telemetry: TelemetryStorage, record: RawBatchRecord, normalizerVersion: string): BatchContext {
  return {
    accountId: record.accountId,
    deviceId: record.deviceId,
    batchId: record.id,
    receivedAtMs: record.receivedAtMs,
    normalizerVersion,
    resolveRepository: repositoryResolver(record.repositories ? recordedLinks(record.repositories) : telemetry.repositories, record.accountId),
  };
}

const MAX_ATTEMPTS = 3;
/** characters of an error message kept as a failure's reason */
const MAX_REASON = 500;
const MAX_IN_MEMORY = 128;
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const key = (accountId: string, batchId: string) => `${accountId}\u0000${batchId}`;

/** An error naming what failed, with the original as its cause (and its message appended). */
export function failure(what: string, cause: unknown): Error {
  return new Error(`${what}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
}

/** An error for the log: its message, and the stack of its cause (where the failure happened). */
export function describeError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  return e.cause instanceof Error && e.cause.stack ? `${e.message}\n${e.cause.stack}` : (e.stack ?? e.message);
}

/**
 * Drains the LMDB normalization queue in the background, one batch per transaction (applied and
 * dequeued atomically), yielding to the event loop between batches so ingest requests interleave
 * with normalization instead of waiting for the whole queue. What ingest handed over is taken
 * from memory (the admitted request, or in the normalizer thread the rows prepared by the HTTP
 * thread); anything else (after a restart) is decoded again from its raw batch.
 */
export class NormalizationWorker implements Normalizer {
  private readonly pending = new Map<string, OtlpRequest | PreparedEvents>();
  private running: Promise<void> | undefined;
  private paused = 0;
  private stopped = false;
  private readonly idleWaiters: (() => void)[] = [];
  private readonly failures = new Map<number, number>();

  constructor(
    private readonly telemetry: TelemetryStorage,
    private readonly options: WorkerOptions,
  ) {}

  /**
   * Holds the admitted request of a batch about to be queued. At most MAX_IN_MEMORY batches are
   * held; past that a backlog is decoded again from the raw store, so memory stays bounded
   * however long the queue grows.
   */
  handoff(record: RawBatchRecord, request: OtlpRequest): void {
    this.hold(record.accountId, record.id, request);
  }

  /** Holds a batch the HTTP thread normalized ahead (see prepared.ts). */
  handoffPrepared(accountId: string, batchId: string, prepared: PreparedEvents): void {
    this.hold(accountId, batchId, prepared);
  }

  private hold(accountId: string, batchId: string, batch: OtlpRequest | PreparedEvents): void {
    // the first delivery wins: a concurrent duplicate must not replace rows built for the one that is queued
    const k = key(accountId, batchId);
    if (this.pending.size < MAX_IN_MEMORY && !this.pending.has(k)) this.pending.set(k, batch);
  }

  queued(record: RawBatchRecord, stored: boolean): void {
    this.settled(record.accountId, record.id, stored);
  }

  /** A held batch was queued (wake up) or not (drop it). */
  settled(accountId: string, batchId: string, stored: boolean): void {
    if (!stored) this.pending.delete(key(accountId, batchId));
    else if (this.options.auto) this.kick();
  }

  kick(): void {
    if (this.running || this.stopped || this.paused > 0) return;
    this.running = this.loop().finally(() => {
      this.running = undefined;
      if (this.options.auto && this.telemetry.queue.peek(1).length > 0 && !this.stopped && this.paused === 0) this.kick();
      else this.idleWaiters.splice(0).forEach((f) => f());
    });
  }

  private async loop(): Promise<void> {
    while (!this.stopped && this.paused === 0) {
      const [item] = this.telemetry.queue.peek(1);
      if (!item) return;
      try {
        await this.process(item);
        this.failures.delete(item.seq);
        this.options.onDequeued(item);
      } catch (e) {
        const attempts = (this.failures.get(item.seq) ?? 0) + 1;
        this.failures.set(item.seq, attempts);
        if (attempts >= MAX_ATTEMPTS) {
          // a batch the normalizer cannot apply must not block every later batch: it stays in the
          // raw store (a rebuild retries it) but leaves the queue, recorded as a failure in the
          // same transaction so the account's health view says its records are not normalized
          const records = await this.giveUp(item, e);
          this.options.onError(failure(`dropped raw batch ${item.batchId} of account ${item.accountId} after ${attempts} failed attempts: its ${records} records are not normalized (counted in the account's health view, normalizationFailed; a rebuild retries it)`, e));
          this.failures.delete(item.seq);
          this.options.onDequeued(item);
        } else {
          this.options.onError(failure(`normalizing raw batch ${item.batchId} of account ${item.accountId} failed (attempt ${attempts} of ${MAX_ATTEMPTS}, will retry)`, e));
          await new Promise((r) => setTimeout(r, 200 * attempts));
        }
      }
      await yieldTurn();
    }
  }

  private async process(item: QueueItem): Promise<void> {
    const k = key(item.accountId, item.batchId);
    const record = this.telemetry.rawBatches.get(item.accountId, item.batchId);
    if (!this.pending.has(k)) this.options.pull?.();
    const held = this.pending.get(k);
    const version = this.options.normalizerVersion();
    if (record && held && isPrepared(held) && held.normalizerVersion === version) {
      // rows are decoded inside the transaction, so they are made and dropped in one stretch
      await this.telemetry.projections.write(
        this.options.generation(),
        (w) => {
          const prepared = openPrepared(this.telemetry.projections, held);
          return applyEvents(w, prepared.events, version, prepared.encoded);
        },
        [item.seq],
      );
      this.pending.delete(k);
      return;
    }
    // rows prepared for another normalizer version (a rebuild switched in between) are redone from the raw batch
    const request = held && !isPrepared(held) ? held : record ? await this.options.load(record) : undefined;
    if (!record || !request) {
      // nothing to normalize (the sweeper never deletes a queued batch, so the record or its
      // bytes went missing otherwise): dequeue it, and say so
      const reason = record ? 'its raw bytes are gone' : 'its raw batch record is gone';
      const records = await this.giveUp(item, new Error(reason));
      this.options.onError(new Error(`dropped raw batch ${item.batchId} of account ${item.accountId}: ${reason}, so its ${records} records are not normalized (counted in the account's health view, normalizationFailed)`));
      return;
    }
    const ctx = batchContext(this.telemetry, record, version);
    await this.telemetry.projections.write(this.options.generation(), (w) => normalizeBatch(w, request, ctx), [item.seq]);
    this.pending.delete(k);
  }

  /**
   * Takes a batch the worker cannot normalize off the queue and records it in the account's
   * health view (NormalizationFailure), in one transaction. Resolves to its record count.
   */
  private async giveUp(item: QueueItem, error: unknown): Promise<number> {
    const record = this.telemetry.rawBatches.get(item.accountId, item.batchId);
    const records = record?.records ?? 0;
    await this.telemetry.projections.write(
      this.options.generation(),
      () =>
        this.telemetry.health.recordNormalizationFailure({
          accountId: item.accountId,
          batchId: item.batchId,
          deviceId: record?.deviceId ?? '',
          records,
          reason: (error instanceof Error ? error.message : String(error)).slice(0, MAX_REASON),
          failedAt: new Date((this.options.now ?? Date.now)()).toISOString(),
        }),
      [item.seq],
    );
    this.pending.delete(key(item.accountId, item.batchId));
    return records;
  }

  /** Resolves when the queue is empty and the worker idle. */
  async drain(): Promise<void> {
    const more = () => this.telemetry.queue.peek(1).length > 0 && !this.stopped && this.paused === 0;
    while (this.running || more()) {
      if (!this.running) this.kick();
      if (!this.running) break;
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    }
  }

  /** Stops taking batches until `resume` (the current batch finishes first). */
  async pause(): Promise<void> {
    this.paused++;
    await this.running;
  }

  resume(): void {
    this.paused = Math.max(0, this.paused - 1);
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}
