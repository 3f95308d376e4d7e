import type { OtlpLimits } from '../../core/telemetry/otlp/index.js';
import type { QueueItem } from '../storage/telemetry-ports.js';
import type { PreparedEvents } from './prepared.js';

/** What the normalizer thread is started with (structured-cloned). */
export interface NormalizerThreadData {
  /** the hub's data directory: the thread opens the same embedded storage */
  dataDir: string;
  /** normalizer version when no generation is live yet */
  normalizerVersion: string;
  /** decoder limits for raw batches read back from the blob store */
  limits: OtlpLimits;
}

/** Messages to the normalizer thread; `id` is echoed in the `done` reply. */
export type ToThread =
  /** a batch about to be queued, normalized ahead (its buffers are moved, not copied) */
  | { type: 'batch'; accountId: string; batchId: string; prepared: PreparedEvents }
  /** the batch's queue item is committed (`stored`) or will not be */
  | { type: 'queued'; accountId: string; batchId: string; stored: boolean }
  | { type: 'kick' }
  | { type: 'resume' }
  | { type: 'drain' | 'pause' | 'stop'; id: number };

/** Messages from the normalizer thread. */
export type FromThread =
  | { type: 'dequeued'; item: QueueItem }
  | { type: 'error'; message: string }
  | { type: 'done'; id: number };
