import { Worker } from 'node:worker_threads';
import type { OtlpRequest } from '../../core/telemetry/otlp/index.js';
import type { QueueItem, RawBatchRecord, TelemetryStorage } from '../storage/telemetry-ports.js';
import { batchEvents } from './normalize-batch.js';
import { prepareEvents } from './prepared.js';
import type { FromThread, NormalizerThreadData, ToThread } from './thread-messages.js';
import { batchContext, failure, type Normalizer } from './worker.js';

// From dist/ (and the CLI bundle, which ships dist/cli/normalize-thread.js next to itself) the
// entry is compiled JS. Under tsx (tests) it is the .ts source; Node 20 workers do not inherit
// tsx's `--import` hooks, so a tiny bootstrap registers tsx before loading it.
const fromSource = import.meta.url.endsWith('.ts');
const entryUrl = new URL(fromSource ? './normalize-thread.ts' : './normalize-thread.js', import.meta.url);

export interface ThreadedNormalizerOptions extends NormalizerThreadData {
  /** this thread's view of the same storage (rows are built and encoded here, ahead of the thread) */
  telemetry: TelemetryStorage;
  /** the normalizer version of the live generation */
  liveVersion(): string;
  /** called after the thread (or the fallback) took a batch off the queue */
  onDequeued(item: QueueItem): void;
  /** errors the normalizer survived (see WorkerOptions.onError); the thread's arrive as messages */
  onError(error: unknown): void;
  /** the in-process normalizer to continue with when the thread cannot run */
  fallback(): Normalizer;
  /** makes this thread's reads see what the normalizer thread committed (called before acting on its messages) */
  freshReads(): void;
}

interface Waiting {
  kind: 'drain' | 'pause' | 'stop';
  resolve(): void;
}

/**
 * The normalizer in a worker thread (normalize-thread.ts), so normalization runs on the second
 * core and never holds up the HTTP thread. The queue is durable in LMDB, so when the thread
 * cannot start or dies, nothing is lost: the hub logs it and continues with the in-process
 * normalizer, which resumes from the queue.
 */
export class ThreadedNormalizer implements Normalizer {
  private worker: Worker | undefined;
  private fallen: Normalizer | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private paused = 0;
  private stopping = false;

  constructor(private readonly options: ThreadedNormalizerOptions) {
    const data: NormalizerThreadData = { dataDir: options.dataDir, normalizerVersion: options.normalizerVersion, limits: options.limits };
    const worker = fromSource
      ? new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entryUrl.href)}); })`, { eval: true, workerData: data })
      : new Worker(entryUrl, { workerData: data });
    worker.on('message', (m: FromThread) => this.receive(m));
    // a thread being stopped or given up on is no longer `this.worker`: what it reports then changes nothing
    worker.on('error', (e) => this.worker === worker && this.fail(e));
    worker.on('exit', (code) => {
      if (this.stopping) this.answerAll();
      else if (this.worker === worker) this.fail(new Error(`the normalizer thread exited (${code})`));
    });
    this.worker = worker;
  }

  private receive(m: FromThread): void {
    this.options.freshReads();
    if (m.type === 'dequeued') this.options.onDequeued(m.item);
    // the thread's message already names the batch and carries the stack
    else if (m.type === 'error') this.options.onError(m.message);
    else {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      w?.resolve();
    }
  }

  /** The thread is gone: continue in-process, in the same paused state, and answer what waited on the thread. */
  private fail(error: unknown): void {
    const worker = this.worker;
    if (!worker) return;
    // not removeAllListeners(): terminate() resolves through an 'exit' listener of the Worker's own
    this.worker = undefined;
    void worker.terminate();
    if (this.stopping) return this.answerAll();
    this.options.onError(new Error(`normalizing in this thread from now on: ${error instanceof Error ? error.message : String(error)}`));
    const fallback = (this.fallen = this.options.fallback());
    for (let i = 0; i < this.paused; i++) void fallback.pause();
    for (const w of this.waiting.values()) {
      if (w.kind === 'drain') void fallback.drain().then(w.resolve);
      else w.resolve();
    }
    this.waiting.clear();
    fallback.kick();
  }

  private answerAll(): void {
    for (const w of this.waiting.values()) w.resolve();
    this.waiting.clear();
  }

  private post(m: ToThread): void {
    this.worker!.postMessage(m);
  }

  private request(kind: Waiting['kind']): Promise<void> {
    return new Promise<void>((resolve) => {
      const id = this.nextId++;
      this.waiting.set(id, { kind, resolve });
      this.post({ type: kind, id });
    });
  }

  /**
   * Builds the batch's rows and encodes them here (pure work, a few microseconds per record), so
   * the normalizer thread only deduplicates, folds and writes: the two threads share the work.
   */
  handoff(record: RawBatchRecord, request: OtlpRequest): void {
    if (this.fallen) return this.fallen.handoff(record, request);
    if (!this.worker) return;
    let prepared;
    try {
      const version = this.options.liveVersion();
      prepared = prepareEvents(this.options.telemetry.projections, batchEvents(request, batchContext(this.options.telemetry, record, version)), version);
    } catch (e) {
      // never fail the export over it: the thread normalizes the batch from its raw bytes (and retries, and reports)
      this.options.onError(failure(`preparing the rows of raw batch ${record.id} of account ${record.accountId} failed (the normalizer thread decodes it from its raw bytes instead)`, e));
      return;
    }
    this.worker.postMessage({ type: 'batch', accountId: record.accountId, batchId: record.id, prepared } satisfies ToThread, [prepared.values.buffer as ArrayBuffer, prepared.ends.buffer as ArrayBuffer]);
  }

  queued(record: RawBatchRecord, stored: boolean): void {
    if (this.fallen) return this.fallen.queued(record, stored);
    if (this.worker) this.post({ type: 'queued', accountId: record.accountId, batchId: record.id, stored });
  }

  kick(): void {
    if (this.fallen) return this.fallen.kick();
    if (this.worker) this.post({ type: 'kick' });
  }

  drain(): Promise<void> {
    if (this.fallen) return this.fallen.drain();
    return this.worker ? this.request('drain') : Promise.resolve();
  }

  pause(): Promise<void> {
    this.paused++;
    if (this.fallen) return this.fallen.pause();
    return this.worker ? this.request('pause') : Promise.resolve();
  }

  resume(): void {
    this.paused = Math.max(0, this.paused - 1);
    if (this.fallen) return this.fallen.resume();
    if (this.worker) this.post({ type: 'resume' });
  }

  async stop(): Promise<void> {
    if (this.fallen) return this.fallen.stop();
    const worker = this.worker;
    if (!worker || this.stopping) return;
    this.stopping = true;
    await this.request('stop');
    // the thread has closed its storage and answered; it does not always exit by itself (a handle
    // of its own stays open), and waiting for its exit event left hub.close() pending for good
    this.worker = undefined;
    await worker.terminate();
  }
}
