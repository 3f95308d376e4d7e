import type { OtlpRequest } from '../../core/telemetry/otlp/index.js';
import { CARDINALITY_VOCABULARY } from '../ingest/admission.js';
import { BlobGuard } from '../ingest/blob-guard.js';
import { CardinalityGuard } from '../ingest/cardinality.js';
import { ingest, type IngestCall, type IngestResult } from '../ingest/gateway.js';
import { decoderLimits, resolveIngestLimits, type IngestLimits } from '../ingest/limits.js';
import { sweepRawBatches, type SweepResult } from '../ingest/retention.js';
import { releaseBlobs } from '../registry/release-blobs.js';
import { rawBatchLoader } from '../normalize/load-raw.js';
import { dropStaleGenerations, rebuildProjections, type RebuildResult } from '../normalize/rebuild.js';
import { expiringEvents } from '../normalize/expire.js';
import { batchEvents } from '../normalize/normalize-batch.js';
import { ThreadedNormalizer } from '../normalize/threaded.js';
import { NORMALIZER_VERSION } from '../normalize/version.js';
import { batchContext, describeError, NormalizationWorker, type Normalizer, type RawBatchLoader } from '../normalize/worker.js';
import type { HubStorage } from '../storage/ports.js';
import type { ExpiredEvent, ProjectionReader, RawBatchRecord } from '../storage/telemetry-ports.js';

export interface TelemetryConfig {
  limits?: Partial<IngestLimits>;
  /** normalizer version stamped on rows (default: the code's NORMALIZER_VERSION) */
  normalizerVersion?: string;
  /** normalize in the background as batches arrive (default); tests pass false and call drain() */
  autoNormalize?: boolean;
  /**
   * Normalize in a worker thread that opens the embedded storage in this data directory (it must
   * be the directory `storage` was opened from). `sf hub serve` sets it; without it, or with
   * `autoNormalize: false`, normalization runs in this thread.
   */
  normalizerThread?: { dataDir: string };
  /** run the raw-batch retention sweeper every this many ms (default: never; `sf hub serve` sets it) */
  sweepIntervalMs?: number;
  /** a health row is stale after this long without an export (default 24 h) */
  staleAfterMs?: number;
  now?: () => number;
  /**
   * A clock that wall-clock corrections do not move (milliseconds), for the sweeper's sanity
   * check of receipt times (retention.ts). Default `performance.now`; with an injected `now` and
   * no `monotonicNow`, the injected clock is the whole truth (tests move time by moving it).
   */
  monotonicNow?: () => number;
}

/**
 * The telemetry side of one hub: the ingest gateway, the background normalization worker, the
 * projection generations and the retention sweeper, over the storage ports.
 */
export class TelemetryService {
  readonly limits: IngestLimits;
  readonly normalizerVersion: string;
  readonly staleAfterMs: number;
  readonly now: () => number;
  private readonly monotonicNow: () => number;
  private readonly startedMonotonicMs: number;
  /** the earliest receipt stamp this process issued (its start until it stamps an earlier one) */
  private earliestReceiptMs: number;
  private readonly cardinality: CardinalityGuard;
  /** shared by ingest and the sweeper (see blob-guard.ts) */
  private readonly blobGuard = new BlobGuard();
  private readonly worker: Normalizer;
  private readonly load: RawBatchLoader;
  private readonly backlogByAccount = new Map<string, number>();
  private backlogTotal = 0;
  private sweeper: NodeJS.Timeout | undefined;
  private started: Promise<void> | undefined;
  private rebuilding: Promise<RebuildResult> | undefined;
  /**
   * The rebuild, the retention sweep and the drop of stale generations, one at a time: a sweep
   * during a rebuild would delete raw batches the rebuild has listed and not replayed yet, before
   * their facts are kept anywhere the rebuild reads.
   */
  private maintenance: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly storage: HubStorage,
    config: TelemetryConfig = {},
  ) {
    this.limits = resolveIngestLimits(config.limits);
    this.normalizerVersion = config.normalizerVersion ?? NORMALIZER_VERSION;
    this.staleAfterMs = config.staleAfterMs ?? 24 * 60 * 60 * 1000;
    this.now = config.now ?? Date.now;
    this.monotonicNow = config.monotonicNow ?? (config.now ? this.now : () => performance.now());
    this.startedMonotonicMs = this.monotonicNow();
    this.earliestReceiptMs = this.now();
    this.cardinality = new CardinalityGuard(this.limits.maxDistinctValuesPerKey, this.limits.cardinalityWindowMs, this.limits.maxCardinalityAccounts, this.now, {
      maxKeys: this.limits.maxCardinalityKeysPerAccount,
      registered: CARDINALITY_VOCABULARY,
    });
    this.load = rawBatchLoader(storage.telemetry, decoderLimits(this.limits));
    const auto = config.autoNormalize !== false;
    // the worker's errors name the batch and say whether it is retried or dropped
    const onError = (e: unknown) => console.error(`hub telemetry: ${describeError(e)}`);
    const onDequeued = (item: { accountId: string }) => this.countBacklog(item.accountId, -1);
    const inProcess = () =>
      new NormalizationWorker(storage.telemetry, {
        normalizerVersion: () => this.liveVersion(),
        generation: () => this.generation(),
        load: this.load,
        onError,
        onDequeued,
        auto,
        now: this.now,
      });
    this.worker =
      auto && config.normalizerThread
        ? new ThreadedNormalizer({
            dataDir: config.normalizerThread.dataDir,
            normalizerVersion: this.normalizerVersion,
            limits: decoderLimits(this.limits),
            telemetry: storage.telemetry,
            liveVersion: () => this.liveVersion(),
            onDequeued,
            onError,
            fallback: inProcess,
            freshReads: () => storage.telemetry.freshReads(),
          })
        : inProcess();
    if (config.sweepIntervalMs) {
      this.sweeper = setInterval(() => {
        void this.sweep().catch((e) => console.error('hub telemetry: sweep failed:', e));
        // registry blobs a crashed publish left: collected even when nobody publishes
        releaseBlobs(storage).sweepIfDue();
      }, config.sweepIntervalMs);
      this.sweeper.unref();
    }
  }

  /**
   * Makes sure a projection generation is live and resumes a queue left by a previous run. When
   * the live generation was built by another normalizer version, a rebuild starts in the
   * background (queries keep the old generation until it is done).
   */
  start(): Promise<void> {
    this.started ??= (async () => {
      const active = this.storage.telemetry.projections.active();
      if (!active) {
        await this.storage.telemetry.projections.setActive({ generation: this.storage.telemetry.projections.lastGeneration() + 1, normalizerVersion: this.normalizerVersion, builtAt: new Date(this.now()).toISOString() });
      }
      for (const [account, n] of this.storage.telemetry.queue.depthByAccount()) this.countBacklog(account, n);
      // in the background (a large leftover takes a while to delete), before any rebuild this run starts
      void this.exclusive(() => dropStaleGenerations(this.storage.telemetry.projections)).catch((e) => console.error('hub telemetry: dropping stale projection generations failed:', e));
      // replay(), not rebuild(): this runs before `started` is assigned, and rebuild() awaits start()
      if (active && active.normalizerVersion !== this.normalizerVersion) void this.replay(this.normalizerVersion).catch((e) => console.error('hub telemetry: rebuild failed:', e));
      else this.worker.kick();
    })();
    return this.started;
  }

  private countBacklog(accountId: string, delta: number): void {
    this.backlogTotal = Math.max(0, this.backlogTotal + delta);
    const n = Math.max(0, (this.backlogByAccount.get(accountId) ?? 0) + delta);
    if (n === 0) this.backlogByAccount.delete(accountId);
    else this.backlogByAccount.set(accountId, n);
  }

  /** The normalizer version of the live projection generation. */
  private liveVersion(): string {
    return this.storage.telemetry.projections.active()?.normalizerVersion ?? this.normalizerVersion;
  }

  /** The live projection generation. */
  generation(): number {
    return this.storage.telemetry.projections.active()?.generation ?? 1;
  }

  reader(): ProjectionReader {
    return this.storage.telemetry.projections.reader(this.generation());
  }

  queued(): number {
    return this.backlogTotal;
  }

  queuedFor(accountId: string): number {
    return this.backlogByAccount.get(accountId) ?? 0;
  }

  async ingest(call: IngestCall): Promise<IngestResult> {
    await this.start();
    const result = await ingest(
      {
        telemetry: this.storage.telemetry,
        tokens: this.storage.tokens,
        limits: this.limits,
        cardinality: this.cardinality,
        blobGuard: this.blobGuard,
        backlog: (accountId) => ({ total: this.backlogTotal, account: this.backlogByAccount.get(accountId) ?? 0 }),
        // counted before the queue item commits: the normalizer thread can take the item off the
        // queue (and report it) before this thread sees the commit, and a count made after that
        // would stay behind for good
        handoff: (record, request) => {
          this.worker.handoff(record, request);
          this.countBacklog(record.accountId, 1);
        },
        queued: (record, stored) => {
          if (!stored) this.countBacklog(record.accountId, -1);
          this.worker.queued(record, stored);
        },
        now: () => {
          const t = this.now();
          if (t < this.earliestReceiptMs) this.earliestReceiptMs = t;
          return t;
        },
      },
      call,
    );
    return result;
  }

  /** Decodes a stored raw batch (already admitted, so no admission runs again). */
  loadRaw(record: RawBatchRecord): Promise<OtlpRequest | undefined> {
    return this.load(record);
  }

  /** Resolves once every queued batch is normalized (and the rebuild, sweep or generation drop under way is done). */
  async drain(): Promise<void> {
    await this.start();
    await this.rebuilding?.catch(() => undefined);
    await this.maintenance;
    await this.worker.drain();
  }

  /** Replays all retained raw batches into a new generation (see rebuild.ts). */
  async rebuild(normalizerVersion = this.normalizerVersion): Promise<RebuildResult> {
    await this.start();
    return this.replay(normalizerVersion);
  }

  /** Runs `task` after every maintenance task queued before it (see `maintenance`). */
  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.maintenance.then(task);
    this.maintenance = run.catch(() => undefined);
    return run;
  }

  /** One rebuild at a time; `rebuilding` is set synchronously, so drain() waits for it. */
  private async replay(normalizerVersion: string): Promise<RebuildResult> {
    const running = this.exclusive(() => rebuildProjections(this.storage.telemetry, this.worker, (r) => this.loadRaw(r), normalizerVersion, this.now));
    this.rebuilding = running;
    try {
      return await running;
    } finally {
      if (this.rebuilding === running) this.rebuilding = undefined;
    }
  }

  /**
   * Deletes raw batches past retention (retention.ts). A swept batch's normalized events stay
   * behind as expired facts, which rebuilds apply in its place (rebuild.ts).
   */
  sweep(nowMs = this.now()): Promise<SweepResult> {
    return this.exclusive(() =>
      sweepRawBatches(this.storage.telemetry, this.blobGuard, nowMs, { earliestReceiptMs: this.earliestReceiptMs, uptimeMs: this.monotonicNow() - this.startedMonotonicMs }, (r) => this.expiringFacts(r)),
    );
  }

  /**
   * The normalized events of a raw batch about to be swept, as the live generation holds them
   * (expire.ts); undefined when its raw bytes cannot be read (a rebuild then copies its events
   * from the live generation instead).
   */
  private async expiringFacts(record: RawBatchRecord): Promise<ExpiredEvent[] | undefined> {
    let request: OtlpRequest | undefined;
    try {
      request = await this.load(record);
    } catch (e) {
      console.error(`hub telemetry: sweep: raw batch ${record.id} of account ${record.accountId} does not decode, so it is swept without keeping its facts (a rebuild copies them from the live generation): ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!request) return undefined;
    const telemetry = this.storage.telemetry;
    telemetry.freshReads();
    return expiringEvents(this.reader(), record.id, batchEvents(request, batchContext(telemetry, record, this.liveVersion())));
  }

  async stop(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await this.rebuilding?.catch(() => undefined);
    await this.maintenance;
    await this.worker.stop();
  }
}
