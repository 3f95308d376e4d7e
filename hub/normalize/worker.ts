import type { OtlpRequest } from '../../core/telemetry/otlp/index.js';
import type { QueueItem, RawBatchRecord, TelemetryStorage } from '../storage/telemetry-ports.js';
import type { BatchContext } from './event.js';
import { normalizeBatch } from './normalize-batch.js';
import { repositoryResolver } from './repository.js';

/** Decodes a stored raw batch back into a request (used after a restart and for rebuilds). */
export type RawBatchLoader = (record: RawBatchRecord) => Promise<OtlpRequest | undefined>;

export interface WorkerOptions {
  /** the normalizer version of the live generation */
  normalizerVersion(): string;
  /** the generation new batches are written to */
  generation(): number;
  load: RawBatchLoader;
  /** called with errors the worker survived (the batch stays queued and is retried) */
  onError(error: unknown): void;
  /** called after a queue item left the queue */
  onDequeued(item: QueueItem): void;
  /** start on handoff (default); when false the queue is only drained by `drain()` */
  auto: boolean;
}

/** The batch context (server-authoritative identity) of a raw batch. */
export function batchContext(telemetry: TelemetryStorage, record: RawBatchRecord, normalizerVersion: string): BatchContext {
  return {
    accountId: record.accountId,
    deviceId: record.deviceId,
    batchId: record.id,
    receivedAtMs: record.receivedAtMs,
    normalizerVersion,
    resolveRepository: repositoryResolver(telemetry.repositories, record.accountId),
  };
}

const MAX_ATTEMPTS = 3;
const MAX_IN_MEMORY = 128;
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const key = (accountId: string, batchId: string) => `${accountId}\u0000${batchId}`;

/**
 * Drains the LMDB normalization queue in the background, one batch per transaction (applied and
 * dequeued atomically), yielding to the event loop between batches so ingest requests interleave
 * with normalization instead of waiting for the whole queue. Requests decoded at ingest are taken from memory; anything else
 * (after a restart) is decoded again from its raw batch.
 */
export class NormalizationWorker {
  private readonly pending = new Map<string, OtlpRequest>();
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
   * Hands over the decoded request of a just-queued batch and wakes the worker. At most
   * MAX_IN_MEMORY requests are held; past that a backlog is decoded again from the raw store,
   * so memory stays bounded however long the queue grows.
   */
  handoff(accountId: string, batchId: string, request: OtlpRequest): void {
    if (this.pending.size < MAX_IN_MEMORY) this.pending.set(key(accountId, batchId), request);
    if (this.options.auto) this.kick();
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
        this.options.onError(e);
        if (attempts >= MAX_ATTEMPTS) {
          // a batch the normalizer cannot apply must not block every later batch: it stays in the
          // raw store (a rebuild retries it) but leaves the queue
          await this.telemetry.projections.write(this.options.generation(), () => undefined, [item.seq]);
          this.failures.delete(item.seq);
          this.pending.delete(key(item.accountId, item.batchId));
          this.options.onDequeued(item);
        } else await new Promise((r) => setTimeout(r, 200 * attempts));
      }
      await yieldTurn();
    }
  }

  private async process(item: QueueItem): Promise<void> {
    const k = key(item.accountId, item.batchId);
    const record = this.telemetry.rawBatches.get(item.accountId, item.batchId);
    const request = this.pending.get(k) ?? (record ? await this.options.load(record) : undefined);
    if (!record || !request) {
      // the raw batch is gone (swept) or unreadable: nothing to normalize, dequeue it
      await this.telemetry.projections.write(this.options.generation(), () => undefined, [item.seq]);
      this.pending.delete(k);
      return;
    }
    const ctx = batchContext(this.telemetry, record, this.options.normalizerVersion());
    await this.telemetry.projections.write(this.options.generation(), (w) => normalizeBatch(w, request, ctx), [item.seq]);
    this.pending.delete(k);
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
